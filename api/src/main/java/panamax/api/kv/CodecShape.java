package panamax.api.kv;

import java.util.List;

/**
 * What a codec stores for one head dimension: its key and value planes.
 *
 * @param headDim     the head dimension this shape was computed for
 * @param keyPlanes   planes of an encoded key
 * @param valuePlanes planes of an encoded value
 */
public record CodecShape(int headDim, List<PlaneSpec> keyPlanes, List<PlaneSpec> valuePlanes) {
    public CodecShape {
        keyPlanes = List.copyOf(keyPlanes);
        valuePlanes = List.copyOf(valuePlanes);
    }

    /** Bytes of key plus value per token per kv head. */
    public long bytesPerTokenPerHead() {
        return keyPlanes.stream().mapToLong(PlaneSpec::bytesPerTokenPerHead).sum()
                + valuePlanes.stream().mapToLong(PlaneSpec::bytesPerTokenPerHead).sum();
    }

    /** Average stored bits per K or V element, metadata included. */
    public double bitsPerElement() {
        return bytesPerTokenPerHead() * 8.0 / (2.0 * headDim);
    }
}
