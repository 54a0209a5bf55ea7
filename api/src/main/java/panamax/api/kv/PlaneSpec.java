package panamax.api.kv;

import panamax.api.tensor.DType;

/**
 * One plane of a codec's encoding: a tensor {@code [rows, heads, tokens, width]} of {@code dtype}.
 * Layouts store planes by this description alone, without knowing the codec.
 *
 * @param name  e.g. {@code packed}, {@code scales}
 * @param width elements per token per head
 * @param dtype storage type
 */
public record PlaneSpec(String name, int width, DType dtype) {
    public PlaneSpec {
        if (width <= 0) throw new IllegalArgumentException("plane " + name + ": width must be positive, found " + width);
    }

    /** Bytes this plane takes per token per head. */
    public long bytesPerTokenPerHead() {
        return (long) width * dtype.byteSize();
    }
}
