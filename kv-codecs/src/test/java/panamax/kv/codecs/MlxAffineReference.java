package panamax.kv.codecs;

/**
 * The MLX CPU affine rule written out in scalar Java, the oracle of the affine tests (see
 * {@code shared/fixtures/mlx-affine/README.md}): per group in f32,
 * {@code s = max((max−min)/(2^b−1), 1e-7)}; the extreme of larger magnitude is the edge (s negated
 * when it is the max); {@code q0 = rint(edge/s)}; if {@code q0 ≠ 0} then {@code s = edge/q0,
 * bias = edge} else {@code bias = 0}; {@code q = clamp(rint((w−bias)/s), 0, 2^b−1)}.
 */
public final class MlxAffineReference {
    private MlxAffineReference() {
    }

    /**
     * One quantized group.
     *
     * @param codes     the clamped codes
     * @param unclamped the codes before clamping (to see where the edge rule moved a value)
     */
    public record Group(int[] codes, int[] unclamped, float scale, float bias) {
    }

    public static Group quantize(float[] w, int from, int size, int bits) {
        int nBins = (1 << bits) - 1;
        float min = Float.POSITIVE_INFINITY;
        float max = Float.NEGATIVE_INFINITY;
        for (int i = from; i < from + size; i++) {
            min = Math.min(min, w[i]);
            max = Math.max(max, w[i]);
        }
        float s = Math.max((max - min) / nBins, 1e-7f);
        float edge;
        if (Math.abs(min) > Math.abs(max)) {
            edge = min;
        } else {
            s = -s;
            edge = max;
        }
        float q0 = (float) Math.rint(edge / s);
        float bias = 0;
        if (q0 != 0) {
            s = edge / q0;
            bias = edge;
        }
        int[] codes = new int[size];
        int[] unclamped = new int[size];
        for (int i = 0; i < size; i++) {
            unclamped[i] = (int) Math.rint((w[from + i] - bias) / s);
            codes[i] = Math.clamp(unclamped[i], 0, nBins);
        }
        return new Group(codes, unclamped, s, bias);
    }

    /** LSB-first packing of {@code bits}-wide codes into 32-bit words, one bit stream per row. */
    public static int[] pack(int[] codes, int bits) {
        int[] words = new int[codes.length * bits / 32];
        for (int i = 0; i < codes.length; i++) {
            for (int j = 0; j < bits; j++) {
                int bit = i * bits + j;
                if (((codes[i] >> j) & 1) != 0) words[bit / 32] |= 1 << (bit % 32);
            }
        }
        return words;
    }

    /** The {@code count} codes of one packed row. */
    public static int[] unpack(int[] words, int from, int count, int bits) {
        int[] codes = new int[count];
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < bits; j++) {
                int bit = i * bits + j;
                if (((words[from + bit / 32] >>> (bit % 32)) & 1) != 0) codes[i] |= 1 << j;
            }
        }
        return codes;
    }
}
