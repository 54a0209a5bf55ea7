package panamax.layout.tck;

import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Deterministic key and value vectors per token id, so the reference needs only ids. Values are
 * multiples of 1/64 in [-2, 2], exactly representable in bf16, so identity storage is lossless.
 */
public final class Tokens {
    /** Key/value heads of every generated tensor. */
    public static final int HEADS = 2;
    public static final int KEY = 0;
    public static final int VALUE = 1;

    private Tokens() {
    }

    /** Feature {@code d} of the key (role 0) or value (role 1) of {@code token} in {@code head}. */
    public static float value(int token, int role, int head, int d) {
        long h = token * 0x9E3779B97F4A7C15L + role * 0xC2B2AE3D27D4EB4FL + head * 0x165667B19E3779F9L + d * 0x27D4EB2F165667C5L;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        return (int) Math.floorMod(h, 257L) / 64f - 2f;
    }

    /** {@code [rows, HEADS, T, headDim]} for token ids {@code ids[r][t]}. */
    public static Tensor tensor(Backend backend, int[][] ids, int role, int headDim) {
        int rows = ids.length;
        int length = rows == 0 ? 0 : ids[0].length;
        float[] data = new float[rows * HEADS * length * headDim];
        int i = 0;
        for (int r = 0; r < rows; r++) {
            for (int h = 0; h < HEADS; h++) {
                for (int t = 0; t < length; t++) {
                    for (int d = 0; d < headDim; d++) data[i++] = value(ids[r][t], role, h, d);
                }
            }
        }
        return backend.fromFloats(data, Shape.of(rows, HEADS, length, headDim), DType.F32);
    }

    /** The reference vector of one token and head. */
    public static float[] vector(int token, int role, int head, int headDim) {
        float[] v = new float[headDim];
        for (int d = 0; d < headDim; d++) v[d] = value(token, role, head, d);
        return v;
    }

}
