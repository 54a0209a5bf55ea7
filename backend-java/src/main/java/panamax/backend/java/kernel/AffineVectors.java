package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector kernels for MLX affine codes ({@link AffineCodes} holds the format and the scalar twins).
 * Works on 32-code blocks: 32 codes of b bits are exactly b words, so every block starts on a word
 * boundary whatever the width, and a row (a multiple of 32 codes) is a run of blocks. Within a
 * block, each vector of L codes loads the L words from its first word, picks each lane's low and
 * high word with a precomputed shuffle and funnels them with per-lane shifts, which decodes the
 * straddling 3/5/6-bit codes with the same instructions as 2/4/8. Stateless; tables are immutable.
 */
public final class AffineVectors {
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Short> HALF = VectorSpecies.of(short.class, VectorShape.forBitSize(I.length() * 16));
    private static final int L = I.length();
    private static final int PARTS = Math.max(1, 32 / L); // vectors per 32-code block
    /** Per bit width and part: first word, low/high word shuffles, right shifts and left shifts of the high word. */
    private static final int[][] FIRST_WORD = new int[9][];
    private static final VectorShuffle<Integer>[][] LO = newShuffles();
    private static final VectorShuffle<Integer>[][] HI = newShuffles();
    private static final IntVector[][] RIGHT = new IntVector[9][];
    private static final IntVector[][] LEFT = new IntVector[9][];

    static {
        for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
            FIRST_WORD[bits] = new int[PARTS];
            LO[bits] = newShuffleRow();
            HI[bits] = newShuffleRow();
            RIGHT[bits] = new IntVector[PARTS];
            LEFT[bits] = new IntVector[PARTS];
            for (int p = 0; p < PARTS; p++) {
                int first = p * L * bits >>> 5;
                int[] lo = new int[L];
                int[] hi = new int[L];
                int[] right = new int[L];
                int[] left = new int[L];
                for (int j = 0; j < L; j++) {
                    int rel = (p * L + j) * bits - 32 * first;
                    lo[j] = Math.min(rel >>> 5, L - 1);
                    hi[j] = Math.min((rel >>> 5) + 1, L - 1);
                    right[j] = rel & 31;
                    left[j] = 31 - (rel & 31); // applied after a shift by 1: 32 - shift without Java's shift-count wrap
                }
                FIRST_WORD[bits][p] = first;
                LO[bits][p] = VectorShuffle.fromArray(I, lo, 0);
                HI[bits][p] = VectorShuffle.fromArray(I, hi, 0);
                RIGHT[bits][p] = IntVector.fromArray(I, right, 0);
                LEFT[bits][p] = IntVector.fromArray(I, left, 0);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Integer>[][] newShuffles() {
        return new VectorShuffle[9][];
    }

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Integer>[] newShuffleRow() {
        return new VectorShuffle[PARTS];
    }

    private AffineVectors() {
    }

    /** True when vectors of this machine can decode 32-code blocks (at least 4 and at most 32 int lanes). */
    public static boolean supported() {
        return L >= 4 && L <= 32;
    }

    /** Blocks starting at byte {@code byteOff} whose vector loads stay inside {@code packed}. */
    public static long safeBlocks(MemorySegment packed, long byteOff, int bits, long blocks) {
        long lastLoad = 4L * (FIRST_WORD[bits][PARTS - 1] + L); // bytes one block's last load reaches
        long room = packed.byteSize() - byteOff - lastLoad;
        if (room < 0) return 0;
        return Math.min(blocks, room / (4L * bits) + 1);
    }

    /** The codes of part {@code p} of the block at byte {@code blockByte}. */
    static IntVector codes(MemorySegment packed, long blockByte, int bits, int p, IntVector mask) {
        IntVector words = IntVector.fromMemorySegment(I, packed, blockByte + 4L * FIRST_WORD[bits][p], ByteOrder.LITTLE_ENDIAN);
        IntVector lo = words.rearrange(LO[bits][p]).lanewise(VectorOperators.LSHR, RIGHT[bits][p]);
        IntVector hi = words.rearrange(HI[bits][p]).lanewise(VectorOperators.LSHL, 1).lanewise(VectorOperators.LSHL, LEFT[bits][p]);
        return lo.or(hi).and(mask);
    }

    /**
     * Unpacks {@code blocks} 32-code blocks at byte {@code byteOff} into {@code dst[dstOff...]}; the
     * caller checked {@link #safeBlocks}.
     */
    public static void unpackBlocks(MemorySegment packed, long byteOff, int bits, int blocks, int[] dst, int dstOff) {
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        for (int k = 0; k < blocks; k++) {
            long blockByte = byteOff + 4L * bits * k;
            for (int p = 0; p < PARTS; p++) codes(packed, blockByte, bits, p, mask).intoArray(dst, dstOff + 32 * k + p * L);
        }
    }

    /**
     * Dequantizes {@code blocks} blocks at byte {@code byteOff} to f32 {@code q·s + b} (two roundings,
     * as MLX) into {@code dst}; code {@code c} of the run (numbered from {@code firstCode}) takes
     * {@code scales[c >>> groupShift]}, so groups of 32 or more codes stay whole within a block.
     */
    public static void dequantizeBlocks(MemorySegment packed, long byteOff, int bits, int blocks, float[] scales,
                                        float[] biases, int firstCode, int groupShift, float[] dst, int dstOff) {
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        for (int k = 0; k < blocks; k++) {
            long blockByte = byteOff + 4L * bits * k;
            int g = (firstCode + 32 * k) >>> groupShift;
            FloatVector s = FloatVector.broadcast(F, scales[g]);
            FloatVector b = FloatVector.broadcast(F, biases[g]);
            for (int p = 0; p < PARTS; p++) {
                FloatVector q = (FloatVector) codes(packed, blockByte, bits, p, mask).convert(VectorOperators.I2F, 0);
                q.mul(s).add(b).intoArray(dst, dstOff + 32 * k + p * L);
            }
        }
    }

    /**
     * Dequantizes {@code blocks} blocks into bf16 at byte {@code outByte} of {@code out} with MLX's
     * bf16 arithmetic: {@code bf16(bf16(q·s) + b)}; scales and biases (exact bf16 values) are indexed
     * as in {@link #dequantizeBlocks}.
     */
    public static void dequantizeBlocksBf16(MemorySegment packed, long byteOff, int bits, int blocks, float[] scales,
                                            float[] biases, int firstCode, int groupShift, MemorySegment out, long outByte) {
        AffineBf16Decoding.dequantize(packed, byteOff, bits, blocks, scales, biases, firstCode, groupShift, out, outByte);
    }

    /** bf16 bit patterns (in the low 16 bits) of {@code v}, rounded to nearest even, NaN kept quiet. */
    static IntVector bf16Bits(FloatVector v) {
        IntVector bits = v.reinterpretAsInts();
        IntVector rounded = bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).add(0x7fff).lanewise(VectorOperators.LSHR, 16);
        var nan = bits.and(0x7fffffff).compare(VectorOperators.GT, 0x7f800000);
        return rounded.blend(bits.lanewise(VectorOperators.LSHR, 16).or(0x40), nan);
    }

    /** {@code v} rounded to bf16 and widened back. */
    static FloatVector roundBf16(FloatVector v) {
        return bf16Bits(v).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    /** 1.5·2²³: adding and subtracting it rounds an f32 below 2²² in magnitude to an integer, ties to even. */
    private static final float RINT = 12582912f;

    /**
     * {@link AffineCodes#quantizeRow} over {@code n} values (whole groups, rows back to back):
     * the same f32 operations per element, so codes, scales and biases are bit-identical. Values
     * whose quotient is beyond ±2²² round wrongly but are clamped to 0 or 2ᵇ − 1 as the scalar path.
     */
    public static void quantizeGroups(float[] w, int n, int groupSize, int bits, int[] codes, float[] scales, float[] biases) {
        float nBins = (1 << bits) - 1;
        int bound = F.loopBound(groupSize);
        for (int g = 0, start = 0; start < n; g++, start += groupSize) {
            FloatVector lo = FloatVector.broadcast(F, Float.POSITIVE_INFINITY);
            FloatVector hi = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
            int i = 0;
            for (; i < bound; i += F.length()) {
                FloatVector v = FloatVector.fromArray(F, w, start + i);
                lo = lo.min(v);
                hi = hi.max(v);
            }
            float wMin = lo.reduceLanes(VectorOperators.MIN);
            float wMax = hi.reduceLanes(VectorOperators.MAX);
            for (; i < groupSize; i++) {
                wMax = Math.max(wMax, w[start + i]);
                wMin = Math.min(wMin, w[start + i]);
            }
            AffineCodes.groupParameters(wMin, wMax, nBins, scales, biases, g);
            float scale = scales[g];
            float bias = biases[g];
            FloatVector vb = FloatVector.broadcast(F, bias);
            FloatVector vs = FloatVector.broadcast(F, scale);
            i = 0;
            for (; i < bound; i += F.length()) {
                FloatVector q = FloatVector.fromArray(F, w, start + i).sub(vb).div(vs).add(RINT).sub(RINT);
                ((IntVector) q.max(0f).min(nBins).convert(VectorOperators.F2I, 0)).intoArray(codes, start + i);
            }
            for (; i < groupSize; i++) {
                float q = (float) Math.rint((w[start + i] - bias) / scale);
                codes[start + i] = (int) Math.min(Math.max(q, 0f), nBins);
            }
        }
    }

    /** Packs codes {@code [0, n)} (whole 32-code blocks) LSB-first into {@code n·bits/32} words from element {@code wordBase} of {@code dst}. */
    public static void pack(int[] codes, int n, int bits, MemorySegment dst, long wordBase) {
        long at = wordBase * 4;
        if (bits == 2 || bits == 4 || bits == 8) { // whole codes per word: one shift-or chain per word
            int per = 32 / bits;
            for (int c = 0; c < n; c += per) {
                int word = 0;
                for (int j = 0; j < per; j++) word |= codes[c + j] << (j * bits);
                dst.set(U32, at, word);
                at += 4;
            }
            return;
        }
        // straddling widths: a 64-bit accumulator; the emit pattern repeats every block, so the branch predicts well
        long acc = 0;
        int filled = 0;
        for (int i = 0; i < n; i++) {
            acc |= (long) codes[i] << filled;
            filled += bits;
            if (filled >= 32) {
                dst.set(U32, at, (int) acc);
                at += 4;
                acc >>>= 32;
                filled -= 32;
            }
        }
    }

    private static final java.lang.foreign.ValueLayout.OfInt U32 =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
}
