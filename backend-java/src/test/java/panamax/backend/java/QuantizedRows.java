package panamax.backend.java;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.RowScales;

/**
 * {@code rows} rows of {@code cols} values quantized by MLX's rule ({@link AffineCodes#quantizeRow})
 * and packed back to back, with their f32 scales and biases: the input every quantized-kernel oracle
 * test starts from. The packed words live in the caller's arena.
 *
 * @param packed    the codes, row r at byte {@code r·rowBytes()}
 * @param scales    row r's group scales at {@code [r·groups, (r+1)·groups)}
 * @param biases    likewise
 * @param groups    groups per row
 * @param words     32-bit words per row
 */
record QuantizedRows(MemorySegment packed, float[] scales, float[] biases, int groups, int words) {

    /** Rows of {@code values.apply(cols)} quantized to {@code bits} in groups of {@code groupSize}. */
    static QuantizedRows of(Arena arena, int rows, int cols, int bits, int groupSize, IntFunction<float[]> values) {
        int groups = cols / groupSize;
        int words = cols * bits / 32;
        MemorySegment packed = arena.allocate(4L * rows * words);
        float[] scales = new float[rows * groups];
        float[] biases = new float[rows * groups];
        int[] codes = new int[cols];
        float[] s = new float[groups];
        float[] b = new float[groups];
        for (int r = 0; r < rows; r++) {
            AffineCodes.quantizeRow(values.apply(cols), cols, groupSize, bits, codes, s, b);
            AffineCodes.packRow(codes, cols, bits, packed, (long) r * words);
            System.arraycopy(s, 0, scales, r * groups, groups);
            System.arraycopy(b, 0, biases, r * groups, groups);
        }
        return new QuantizedRows(packed, scales, biases, groups, words);
    }

    long rowBytes() {
        return 4L * words;
    }

    /** The rows' parameters as the kernels read them. */
    RowScales params() {
        return (row, sc, bi) -> {
            System.arraycopy(scales, row * groups, sc, 0, groups);
            System.arraycopy(biases, row * groups, bi, 0, groups);
        };
    }
}
