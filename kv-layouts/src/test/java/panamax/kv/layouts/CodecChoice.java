package panamax.kv.layouts;

import java.util.Map;

/**
 * A codec the properties run a layout with, and how far its decoded vectors may be from the
 * originals: the largest relative L2 error per (token, head) vector; 0 means exact.
 *
 * @param id        codec plugin id
 * @param params    its parameters
 * @param tolerance largest relative L2 error of a decoded vector
 */
record CodecChoice(String id, Map<String, String> params, double tolerance) {
    static final CodecChoice IDENTITY = new CodecChoice("identity", Map.of(), 0);
    // bounds measured over 4000 vectors (worst 0.006 and 0.10) with headroom
    static final CodecChoice AFFINE_8 = new CodecChoice("affine", Map.of("bits", "8", "group_size", "32"), 0.01);
    static final CodecChoice AFFINE_4 = new CodecChoice("affine", Map.of("bits", "4", "group_size", "32"), 0.15);
    // 3-bit values in 32 dimensions: worst vector of 4000 measured at 0.38, the mean far lower
    static final CodecChoice TURBO_4_3 = new CodecChoice("turboquant", Map.of("key_bits", "4", "value_bits", "3"), 0.5);

    @Override
    public String toString() {
        return id + params;
    }
}
