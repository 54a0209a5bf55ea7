package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
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
    private static final VectorSpecies<Byte> BYTE16 = VectorSpecies.of(byte.class, VectorShape.forBitSize(Math.max(64, L * 8)));
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
    private static IntVector codes(MemorySegment packed, long blockByte, int bits, int p, IntVector mask) {
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
        if (tabulates(bits) && groupShift >= 5) {
            dequantizeTabulatedBf16(packed, byteOff, bits, blocks, scales, biases, firstCode, groupShift, out, outByte);
            return;
        }
        dequantizeDirectBf16(packed, byteOff, bits, blocks, scales, biases, firstCode, groupShift, out, outByte);
    }

    /** {@link #dequantizeBlocksBf16} computing every code's value (widths of more values than lanes). */
    private static void dequantizeDirectBf16(MemorySegment packed, long byteOff, int bits, int blocks, float[] scales,
                                             float[] biases, int firstCode, int groupShift, MemorySegment out, long outByte) {
        // finite scales and biases make no NaN: the rounding then skips its quiet-NaN repair (bit-identical)
        boolean finite = true;
        for (int g = firstCode >>> groupShift, last = (firstCode + 32 * blocks - 1) >>> groupShift; g <= last && blocks > 0; g++) {
            finite &= Float.isFinite(scales[g]) && Float.isFinite(biases[g]);
        }
        // separate loops, not branches inside one: a loop compiled before a case arrives traps back to the interpreter
        if (!finite) directBf16(packed, byteOff, bits, blocks, scales, biases, firstCode, groupShift, out, outByte);
        else if (bits == 8 && BYTE16.length() == L) finiteBytesBf16(packed, byteOff, blocks, scales, biases, firstCode, groupShift, out, outByte);
        else finiteWordsBf16(packed, byteOff, bits, blocks, scales, biases, firstCode, groupShift, out, outByte);
    }

    /** Any scales: MLX's rounding with its NaN repair. */
    private static void directBf16(MemorySegment packed, long byteOff, int bits, int blocks, float[] scales, float[] biases,
                                   int firstCode, int groupShift, MemorySegment out, long outByte) {
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        for (int k = 0; k < blocks; k++) {
            long blockByte = byteOff + 4L * bits * k;
            int g = (firstCode + 32 * k) >>> groupShift;
            FloatVector s = FloatVector.broadcast(F, scales[g]);
            FloatVector b = FloatVector.broadcast(F, biases[g]);
            for (int p = 0; p < PARTS; p++) {
                FloatVector q = (FloatVector) codes(packed, blockByte, bits, p, mask).convert(VectorOperators.I2F, 0);
                IntVector v = bf16Bits(roundBf16(q.mul(s)).add(b));
                ((ShortVector) v.convertShape(VectorOperators.I2S, HALF, 0))
                        .intoMemorySegment(out, outByte + 2L * (32 * k + p * L), ByteOrder.LITTLE_ENDIAN);
            }
        }
    }

    /** Finite scales, codes decoded from words. */
    private static void finiteWordsBf16(MemorySegment packed, long byteOff, int bits, int blocks, float[] scales, float[] biases,
                                        int firstCode, int groupShift, MemorySegment out, long outByte) {
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        for (int k = 0; k < blocks; k++) {
            long blockByte = byteOff + 4L * bits * k;
            int g = (firstCode + 32 * k) >>> groupShift;
            FloatVector s = FloatVector.broadcast(F, scales[g]);
            FloatVector b = FloatVector.broadcast(F, biases[g]);
            for (int p = 0; p < PARTS; p++) {
                FloatVector q = (FloatVector) codes(packed, blockByte, bits, p, mask).convert(VectorOperators.I2F, 0);
                FloatVector prod = finiteBf16Bits(q.mul(s)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
                ((ShortVector) finiteBf16Bits(prod.add(b)).convertShape(VectorOperators.I2S, HALF, 0))
                        .intoMemorySegment(out, outByte + 2L * (32 * k + p * L), ByteOrder.LITTLE_ENDIAN);
            }
        }
    }

    /** Finite scales, 8-bit codes widened straight from their bytes (no word shuffles). */
    private static void finiteBytesBf16(MemorySegment packed, long byteOff, int blocks, float[] scales, float[] biases,
                                        int firstCode, int groupShift, MemorySegment out, long outByte) {
        for (int k = 0; k < blocks; k++) {
            long blockByte = byteOff + 32L * k;
            int g = (firstCode + 32 * k) >>> groupShift;
            FloatVector s = FloatVector.broadcast(F, scales[g]);
            FloatVector b = FloatVector.broadcast(F, biases[g]);
            for (int p = 0; p < PARTS; p++) {
                IntVector c = ((IntVector) ByteVector.fromMemorySegment(BYTE16, packed, blockByte + (long) p * L, ByteOrder.LITTLE_ENDIAN)
                        .convertShape(VectorOperators.B2I, I, 0)).and(0xFF);
                FloatVector q = (FloatVector) c.convert(VectorOperators.I2F, 0);
                FloatVector prod = finiteBf16Bits(q.mul(s)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
                ((ShortVector) finiteBf16Bits(prod.add(b)).convertShape(VectorOperators.I2S, HALF, 0))
                        .intoMemorySegment(out, outByte + 2L * (32 * k + p * L), ByteOrder.LITTLE_ENDIAN);
            }
        }
    }

    /** {@link #bf16Bits} of a vector without NaN lanes (infinities round to themselves). */
    private static IntVector finiteBf16Bits(FloatVector v) {
        IntVector bits = v.reinterpretAsInts();
        return bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).add(0x7fff).lanewise(VectorOperators.LSHR, 16);
    }

    /** True when {@link #dequantizeBlocksBf16} decodes {@code bits}-bit codes through a per-group table of values in registers. */
    private static boolean tabulates(int bits) {
        // 2 and 4 bits read their codes as bytes (no word shuffles); 3-bit codes cost the shuffles either
        // way, and computing their values measured faster than looking them up (0.79 against 0.96 ms per 2 M codes)
        return (bits == 2 || bits == 4) && L == 16 && F.length() == L;
    }

    /**
     * {@link #dequantizeBlocksBf16} for widths whose 2^bits values fit one vector (see
     * {@link #tabulates}): per group the bf16 results of all 2^bits codes are computed once, with the
     * same lane arithmetic, and each code then looks its value up ({@code selectFrom}), so the per-code
     * work is decoding, one look-up, a narrowing and a store (measured 15 % faster than computing each
     * value at 2 and 4 bits, groups of 64). Groups of at least 32 codes.
     */
    private static void dequantizeTabulatedBf16(MemorySegment packed, long byteOff, int bits, int blocks, float[] scales,
                                        float[] biases, int firstCode, int groupShift, MemorySegment out, long outByte) {
        if (blocks <= 0) return;
        int firstGroup = firstCode >>> groupShift;
        int groups = ((firstCode + 32 * blocks - 1) >>> groupShift) - firstGroup + 1;
        int[] tables = new int[groups * L];
        tabulateBf16(scales, biases, firstGroup, groups, tables);
        if (bits == 4 && L == 16) lookUp4Bf16(packed, byteOff, blocks, firstCode, groupShift, tables, out, outByte);
        else if (bits == 2 && L == 16 && groupShift >= 6) lookUp2Bf16(packed, byteOff, blocks, firstCode, groupShift, tables, out, outByte);
        else lookUpBf16(packed, byteOff, bits, 0, blocks, firstCode, groupShift, tables, out, outByte);
    }

    // The tables and the look-ups are two methods, not one: in one, C2 hits its node limit, stops
    // inlining the Vector API calls, and the vectors of the calls it did not inline are boxed.

    /** Per group g, the bf16 bits of {@code bf16(bf16(q·scale) + bias)} for q = 0 .. L − 1 at {@code tables[(g − first)·L]}. */
    private static void tabulateBf16(float[] scales, float[] biases, int first, int groups, int[] tables) {
        for (int g = 0; g < groups; g++) {
            FloatVector s = FloatVector.broadcast(F, scales[first + g]);
            FloatVector b = FloatVector.broadcast(F, biases[first + g]);
            bf16Bits(roundBf16(IOTA.mul(s)).add(b)).intoArray(tables, g * L);
        }
    }

    /** Each code's value of blocks {@code [from, to)} looked up in its group's table. */
    private static void lookUpBf16(MemorySegment packed, long byteOff, int bits, int from, int to, int firstCode, int groupShift,
                                   int[] tables, MemorySegment out, long outByte) {
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        int first = firstCode >>> groupShift;
        for (int k = from; k < to; k++) {
            long blockByte = byteOff + 4L * bits * k;
            IntVector table = IntVector.fromArray(I, tables, (((firstCode + 32 * k) >>> groupShift) - first) * L);
            for (int p = 0; p < PARTS; p++) {
                IntVector v = codes(packed, blockByte, bits, p, mask).selectFrom(table);
                ((ShortVector) v.convertShape(VectorOperators.I2S, HALF, 0))
                        .intoMemorySegment(out, outByte + 2L * (32 * k + p * L), ByteOrder.LITTLE_ENDIAN);
            }
        }
    }

    /**
     * {@link #lookUpBf16} for 4-bit codes on 16 lanes: a block's 16 bytes widened to one int each,
     * the low and high nibble looked up separately, and each int lane stores both results (the two
     * adjacent bf16 values of its byte) — no word shuffles at all.
     */
    private static void lookUp4Bf16(MemorySegment packed, long byteOff, int blocks, int firstCode, int groupShift, int[] tables,
                                    MemorySegment out, long outByte) {
        int first = firstCode >>> groupShift;
        for (int k = 0; k < blocks; k++) {
            IntVector table = IntVector.fromArray(I, tables, (((firstCode + 32 * k) >>> groupShift) - first) * L);
            IntVector x = ((IntVector) ByteVector.fromMemorySegment(BYTE16, packed, byteOff + 16L * k, ByteOrder.LITTLE_ENDIAN)
                    .convertShape(VectorOperators.B2I, I, 0)).and(0xFF);
            IntVector low = x.and(15).selectFrom(table);
            IntVector high = x.lanewise(VectorOperators.LSHR, 4).selectFrom(table);
            low.or(high.lanewise(VectorOperators.LSHL, 16)).intoMemorySegment(out, outByte + 64L * k, ByteOrder.LITTLE_ENDIAN);
        }
    }

    /**
     * {@link #lookUpBf16} for 2-bit codes on 16 lanes, groups of 64 or more: two blocks (16 bytes,
     * 64 codes of one group) widened to one int per byte, its four codes looked up, and the four
     * bf16 results of each byte stored as one long. A block pair that would straddle two groups
     * (an odd first block) takes the general look-up.
     */
    private static void lookUp2Bf16(MemorySegment packed, long byteOff, int blocks, int firstCode, int groupShift, int[] tables,
                                    MemorySegment out, long outByte) {
        int first = firstCode >>> groupShift;
        int k = 0;
        if ((firstCode & 63) != 0) {
            lookUpBf16(packed, byteOff, 2, 0, 1, firstCode, groupShift, tables, out, outByte);
            k = 1;
        }
        for (; k + 1 < blocks; k += 2) {
            IntVector table = IntVector.fromArray(I, tables, (((firstCode + 32 * k) >>> groupShift) - first) * L);
            IntVector x = ((IntVector) ByteVector.fromMemorySegment(BYTE16, packed, byteOff + 8L * k, ByteOrder.LITTLE_ENDIAN)
                    .convertShape(VectorOperators.B2I, I, 0)).and(0xFF);
            IntVector c0 = x.and(3).selectFrom(table);
            IntVector c1 = x.lanewise(VectorOperators.LSHR, 2).and(3).selectFrom(table);
            IntVector c2 = x.lanewise(VectorOperators.LSHR, 4).and(3).selectFrom(table);
            IntVector c3 = x.lanewise(VectorOperators.LSHR, 6).selectFrom(table);
            IntVector a = c0.or(c1.lanewise(VectorOperators.LSHL, 16)); // values 4j, 4j + 1 of byte j
            IntVector b = c2.or(c3.lanewise(VectorOperators.LSHL, 16)); // values 4j + 2, 4j + 3
            for (int part = 0; part < 2; part++) {
                LongVector lo = ((LongVector) a.convert(VectorOperators.I2L, part)).and(0xFFFFFFFFL);
                LongVector hi = ((LongVector) b.convert(VectorOperators.I2L, part)).lanewise(VectorOperators.LSHL, 32);
                lo.or(hi).intoMemorySegment(out, outByte + 64L * k + 64L * part, ByteOrder.LITTLE_ENDIAN);
            }
        }
        if (k < blocks) lookUpBf16(packed, byteOff, 2, k, blocks, firstCode, groupShift, tables, out, outByte);
    }

    /** Lane i holds i. */
    private static final FloatVector IOTA = (FloatVector) IntVector.zero(I).addIndex(1).convert(VectorOperators.I2F, 0);

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
            scales[g] = scale;
            biases[g] = bias;
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
