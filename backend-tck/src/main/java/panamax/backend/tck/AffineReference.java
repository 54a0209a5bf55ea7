package panamax.backend.tck;

import panamax.api.tensor.DType;

/**
 * MLX's affine group quantization as its CPU path computes it (the rule in {@code Ops#quantize} and
 * in the mlx-affine fixture README): per group, in f32, with round-half-to-even, the upper clamp,
 * and scales/biases rounded to the input dtype only when stored. Also the LSB-first packing of
 * codes into little-endian uint32 words and float64 dequantization. Stateless; thread-safe.
 */
public final class AffineReference {
    private AffineReference() {
    }

    /**
     * One quantized matrix as row-major arrays.
     *
     * @param codes  [rows, cols] the integer code of each element
     * @param packed [rows, cols·bits/32] uint32 words as int bit patterns
     * @param scales [rows, cols/groupSize] as stored (rounded to the input dtype)
     * @param biases [rows, cols/groupSize] as stored (rounded to the input dtype)
     */
    public record Quantized(int[] codes, int[] packed, double[] scales, double[] biases) {
    }

    /**
     * Quantizes {@code w} ({@code rows × cols} row-major, values already exact in {@code dtype})
     * along its rows.
     */
    public static Quantized quantize(double[] w, int rows, int cols, int groupSize, int bits, DType dtype) {
        int groups = cols / groupSize;
        float nBins = (1 << bits) - 1;
        int[] codes = new int[rows * cols];
        double[] scales = new double[rows * groups];
        double[] biases = new double[rows * groups];
        for (int r = 0; r < rows; r++) {
            for (int g = 0; g < groups; g++) {
                int base = r * cols + g * groupSize;
                float wMin = Float.POSITIVE_INFINITY;
                float wMax = Float.NEGATIVE_INFINITY;
                for (int i = 0; i < groupSize; i++) {
                    float x = (float) w[base + i];
                    // std::min / std::max: keep the old value on equality
                    wMin = x < wMin ? x : wMin;
                    wMax = x > wMax ? x : wMax;
                }
                float s = (wMax - wMin) / nBins;
                s = s < 1e-7f ? 1e-7f : s;
                boolean minIsEdge = Math.abs(wMin) > Math.abs(wMax);
                s = minIsEdge ? s : -s;
                float edge = minIsEdge ? wMin : wMax;
                float q0 = (float) Math.rint(edge / s);
                float bias = 0f;
                if (q0 != 0f) {
                    s = edge / q0;
                    bias = edge;
                }
                for (int i = 0; i < groupSize; i++) {
                    float q = (float) Math.rint(((float) w[base + i] - bias) / s);
                    codes[base + i] = (int) Math.min(Math.max(q, 0f), nBins);
                }
                scales[r * groups + g] = Numerics.round(s, dtype);
                biases[r * groups + g] = Numerics.round(bias, dtype);
            }
        }
        return new Quantized(codes, pack(codes, rows, cols, bits), scales, biases);
    }

    /** Packs {@code bits}-wide codes LSB first into each row's little-endian uint32 bit stream. */
    public static int[] pack(int[] codes, int rows, int cols, int bits) {
        int words = cols * bits / 32;
        int[] packed = new int[rows * words];
        for (int r = 0; r < rows; r++) {
            for (int i = 0; i < cols; i++) {
                long code = codes[r * cols + i];
                int bit = i * bits;
                int word = r * words + bit / 32;
                int shift = bit % 32;
                packed[word] |= (int) (code << shift);
                if (shift + bits > 32) packed[word + 1] |= (int) (code >>> (32 - shift));
            }
        }
        return packed;
    }

    /** The inverse of {@link #pack}. */
    public static int[] unpack(int[] packed, int rows, int cols, int bits) {
        int words = cols * bits / 32;
        int[] codes = new int[rows * cols];
        long mask = (1L << bits) - 1;
        for (int r = 0; r < rows; r++) {
            for (int i = 0; i < cols; i++) {
                int bit = i * bits;
                int word = r * words + bit / 32;
                long pair = Integer.toUnsignedLong(packed[word]);
                if (word + 1 < (r + 1) * words) pair |= Integer.toUnsignedLong(packed[word + 1]) << 32;
                codes[r * cols + i] = (int) ((pair >>> (bit % 32)) & mask);
            }
        }
        return codes;
    }

    /** {@code code·scale + bias} of every element in float64, from the stored scales and biases. */
    public static double[] dequantize(int[] codes, double[] scales, double[] biases, int rows, int cols, int groupSize) {
        int groups = cols / groupSize;
        double[] out = new double[rows * cols];
        for (int r = 0; r < rows; r++) {
            for (int i = 0; i < cols; i++) {
                int g = r * groups + i / groupSize;
                out[r * cols + i] = codes[r * cols + i] * scales[g] + biases[g];
            }
        }
        return out;
    }

    /**
     * The size of the terms a product over affine codes may add, per element: {@code |code·scale| + |bias|} (the
     * dequantized weight's own terms, which bound its f32 rounding even where they cancel) plus the group's code range
     * {@code |scale|·2^bits}. A kernel may multiply any affine form of the codes: the Java backend's reads each code as
     * {@code 1 + q·2^-bits}, so its terms are {@code scale·2^bits·(1 + q·2^-bits)} and {@code bias − scale·2^bits}, and
     * a row of zero codes and zero bias gives the rounding residue of those two instead of an exact zero. Relative to
     * the code range that residue is far below the quantization step itself.
     */
    public static double[] productMagnitude(int[] codes, double[] scales, double[] biases, int rows, int cols, int groupSize, int bits) {
        int groups = cols / groupSize;
        double range = Math.scalb(1.0, bits);
        double[] out = new double[rows * cols];
        for (int r = 0; r < rows; r++) {
            for (int i = 0; i < cols; i++) {
                int g = r * groups + i / groupSize;
                out[r * cols + i] = Math.abs(codes[r * cols + i] * scales[g]) + Math.abs(biases[g]) + Math.abs(scales[g]) * range;
            }
        }
        return out;
    }
}
