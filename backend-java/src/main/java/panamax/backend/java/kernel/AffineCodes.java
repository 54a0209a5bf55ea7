package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * MLX affine codes: each row is a little-endian uint32 bit stream, element {@code i} in bits
 * {@code [i·bits, (i+1)·bits)} (3, 5 and 6-bit codes straddle words). Quantization follows MLX's
 * CPU path exactly (f32 math, {@code rint} = round half to even). Stateless.
 */
public final class AffineCodes {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private AffineCodes() {
    }

    /**
     * Quantizes one row of {@code cols} values into {@code codes} (as ints) and the groups'
     * scales and biases in f32 (before rounding to the storage dtype).
     */
    public static void quantizeRow(float[] w, int cols, int groupSize, int bits, int[] codes, float[] scales, float[] biases) {
        float nBins = (1 << bits) - 1;
        for (int g = 0, start = 0; start < cols; g++, start += groupSize) {
            float wMin = Float.POSITIVE_INFINITY;
            float wMax = Float.NEGATIVE_INFINITY;
            for (int i = start; i < start + groupSize; i++) {
                wMax = Math.max(wMax, w[i]);
                wMin = Math.min(wMin, w[i]);
            }
            groupParameters(wMin, wMax, nBins, scales, biases, g);
            float scale = scales[g];
            float bias = biases[g];
            for (int i = start; i < start + groupSize; i++) {
                float q = (float) Math.rint((w[i] - bias) / scale);
                codes[i] = (int) Math.min(Math.max(q, 0f), nBins);
            }
        }
    }

    /**
     * MLX's scale and bias of one group from its minimum and maximum (f32, in MLX's order of
     * operations): the edge of larger magnitude is represented exactly, the scale floored at 1e-7.
     * Written to {@code scales[g]} and {@code biases[g]}; every quantizer (scalar, vector, fused)
     * calls this one rule, so they stay bit-identical.
     */
    public static void groupParameters(float wMin, float wMax, float nBins, float[] scales, float[] biases, int g) {
        boolean minIsEdge = Math.abs(wMin) > Math.abs(wMax);
        float scale = Math.max((wMax - wMin) / nBins, 1e-7f);
        scale = minIsEdge ? scale : -scale;
        float edge = minIsEdge ? wMin : wMax;
        float q0 = (float) Math.rint(edge / scale);
        float bias = 0;
        if (q0 != 0) {
            scale = edge / q0;
            bias = edge;
        }
        scales[g] = scale;
        biases[g] = bias;
    }

    /** Packs {@code codes[0, cols)} into {@code cols·bits/32} words at element {@code wordBase} of {@code dst}. */
    public static void packRow(int[] codes, int cols, int bits, MemorySegment dst, long wordBase) {
        int words = cols * bits / 32;
        int[] out = new int[words];
        pack(codes, cols, bits, out);
        for (int i = 0; i < words; i++) dst.setAtIndex(U32, wordBase + i, out[i]);
    }

    /** MLX's packing of {@code codes[0, cols)} into {@code out[0, cols·bits/32)} (overwritten): code i from bit i·bits on. */
    static void pack(int[] codes, int cols, int bits, int[] out) {
        Arrays.fill(out, 0, cols * bits / 32, 0);
        for (int i = 0; i < cols; i++) {
            long bit = (long) i * bits;
            int word = (int) (bit >>> 5);
            int shift = (int) (bit & 31);
            out[word] |= codes[i] << shift;
            if (shift + bits > 32) out[word + 1] |= codes[i] >>> (32 - shift);
        }
    }

    /**
     * The k codes of the row whose first word is at byte {@code rowBytes} ({@code bits} wide, MLX's packing) packed again
     * {@code wideBits} wide into {@code words[0, k·wideBits/32)}, each code's value unchanged; {@code codes} is scratch
     * of at least k.
     */
    public static void widenRow(MemorySegment packed, long rowBytes, int bits, int k, int wideBits, int[] codes, int[] words) {
        unpack(packed, rowBytes, bits, 0, k, codes);
        pack(codes, k, wideBits, words);
    }

    /** Reads codes {@code [from, to)} of the row whose first word is at byte {@code rowBytes}. */
    public static void unpack(MemorySegment packed, long rowBytes, int bits, int from, int to, int[] dst) {
        if (to <= from) return;
        if (AffineVectors.supported() && from % 32 == 0 && (to - from) % 32 == 0) {
            long byteOff = rowBytes + 4L * (from / 32) * bits;
            int blocks = (to - from) / 32;
            int fast = (int) AffineVectors.safeBlocks(packed, byteOff, bits, blocks);
            AffineVectors.unpackBlocks(packed, byteOff, bits, fast, dst, 0);
            if (fast == blocks) return;
            unpackScalar(packed, rowBytes, bits, from + 32 * fast, to, dst, 32 * fast);
            return;
        }
        unpackScalar(packed, rowBytes, bits, from, to, dst, 0);
    }

    /** The scalar twin of {@link #unpack}, writing from {@code dst[dstOff]}. */
    static void unpackScalar(MemorySegment packed, long rowBytes, int bits, int from, int to, int[] dst, int dstOff) {
        if (to <= from) return;
        int mask = (1 << bits) - 1;
        int firstWord = (int) (((long) from * bits) >>> 5);
        int lastWord = (int) (((long) to * bits - 1) >>> 5);
        int[] words = new int[lastWord - firstWord + 2]; // one spare word: straddling reads never branch
        MemorySegment.copy(packed, U32, rowBytes + 4L * firstWord, words, 0, lastWord - firstWord + 1);
        long bit = (long) from * bits - 32L * firstWord;
        for (int i = 0; i < to - from; i++, bit += bits) {
            int w = (int) (bit >>> 5);
            long pair = (words[w] & 0xffffffffL) | ((long) words[w + 1] << 32);
            dst[dstOff + i] = (int) (pair >>> (bit & 31)) & mask;
        }
    }

    /**
     * Dequantized f32 values {@code q·scale + bias} (two f32 roundings, no fused multiply-add, as
     * MLX) of codes {@code [from, to)} of one row; {@code from} is group-aligned or not, any range.
     */
    public static void dequantize(MemorySegment packed, long rowBytes, int bits, int groupSize, float[] scales, float[] biases,
                                  int from, int to, int[] scratch, float[] dst, int dstOff) {
        int shift = Integer.numberOfTrailingZeros(groupSize); // group sizes are powers of two
        if (AffineVectors.supported() && from % 32 == 0 && (to - from) % 32 == 0 && groupSize >= 32) {
            long byteOff = rowBytes + 4L * (from / 32) * bits;
            int blocks = (to - from) / 32;
            int fast = (int) AffineVectors.safeBlocks(packed, byteOff, bits, blocks);
            AffineVectors.dequantizeBlocks(packed, byteOff, bits, fast, scales, biases, from, shift, dst, dstOff);
            if (fast == blocks) return;
            from += 32 * fast;
            dstOff += 32 * fast;
        }
        unpack(packed, rowBytes, bits, from, to, scratch);
        for (int i = from; i < to; i++) {
            int g = i >>> shift;
            float prod = scratch[i - from] * scales[g];
            dst[dstOff + i - from] = prod + biases[g];
        }
    }
}
