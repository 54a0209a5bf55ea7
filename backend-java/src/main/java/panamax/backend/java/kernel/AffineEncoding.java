package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * MLX affine quantization of a run of whole groups, bit-identical to {@link AffineCodes#quantizeRow}
 * and {@link AffineCodes#packRow}, in three branch-free passes over the caller's row values (held
 * in L1): each group's min and max; the scales and biases of L groups at once in lanes (the scalar
 * version's data-dependent branches mispredicted on every other group and serialized the groups);
 * then the codes of each vector, packed in registers and stored as bytes. Packing: L codes are L/8
 * units of 8 codes, and a unit is exactly {@code bits} bytes; adjacent int lanes are paired as
 * long lanes (2 codes), pairs of long lanes twice (4, then 8 codes), and one byte shuffle moves
 * each unit's {@code bits} bytes together for one masked store. bf16 rows take {@link #quantizeBf16}
 * (four-way lanes, group extremes folded into lanes, rounding in float bits), which refuses rows with
 * NaN or infinities; they come here. Stateless; tables immutable.
 */
public final class AffineEncoding {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> QUARTER =
            VectorSpecies.of(byte.class, VectorShape.forBitSize(Math.max(64, I.length() * 8)));
    private static final VectorSpecies<Byte> EIGHTH =
            VectorSpecies.of(byte.class, VectorShape.forBitSize(Math.max(64, I.length() * 4))); // 16 lanes: 8 bytes
    private static final int L = F.length();
    /** 1.5·2²³: adding and subtracting it rounds an f32 below 2²² in magnitude to an integer, ties to even. */
    private static final float RINT = 12582912f;
    private static final float TWO_23 = 8388608f;
    /** The bits of 1.5·2²³ ({@link #RINT}): an integer q below 2²² in magnitude added to it has the bits BIASED_ZERO + q. */
    private static final int BIASED_ZERO = 0x4B400000;
    /** Two-vector selects of int lanes 2k and 2k + 1 of 32 (two loads of 16): four bf16 values per lane. */
    private static final IntVector EVEN_INTS;
    private static final IntVector ODD_INTS;
    /** The fold's levels: lane i ↔ lane i ^ d, and the lanes whose bit d is set. */
    private static final VectorShuffle<Float> SWAP8 = VectorShuffle.fromOp(F, i -> i ^ 8);
    private static final VectorShuffle<Float> SWAP4 = VectorShuffle.fromOp(F, i -> i ^ 4);
    private static final VectorShuffle<Float> SWAP2 = VectorShuffle.fromOp(F, i -> i ^ 2);
    private static final VectorShuffle<Float> SWAP1 = VectorShuffle.fromOp(F, i -> i ^ 1);
    private static final VectorMask<Float> UPPER8 = VectorMask.fromLong(F, 0xFF00L);
    private static final VectorMask<Float> UPPER4 = VectorMask.fromLong(F, 0xF0F0L);
    private static final VectorMask<Float> UPPER2 = VectorMask.fromLong(F, 0xCCCCL);
    private static final VectorMask<Float> UPPER1 = VectorMask.fromLong(F, 0xAAAAL);
    /** Lane g ← lane bitreverse(g): the fold's lane order back to group order. */
    private static final VectorShuffle<Float> BIT_REVERSED = VectorShuffle.fromOp(F, i -> Integer.reverse(i) >>> 28);
    /** Per width: bytes 0 .. bits − 1 of each long lane, gathered to the front (a 64-value block's bytes). */
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Byte>[] PICK_UNITS = new VectorShuffle[9];
    /** Lane i ← lane i + 2^k (mod L): the halving steps of a lane reduction. */
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Float>[] HALVES = new VectorShuffle[Integer.numberOfTrailingZeros(L) + 1];
    private static final VectorShuffle<Long> NEXT1 = VectorShuffle.iota(LONGS, 1, 1, true);
    private static final VectorShuffle<Long> NEXT2 = VectorShuffle.iota(LONGS, 2, 1, true);
    /** Per width: the byte shuffle gathering each unit's bytes to the front, and the mask of those bytes. */
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Byte>[] PICK = new VectorShuffle[9];

    static {
        int[] even = new int[I.length()];
        int[] odd = new int[I.length()];
        for (int k = 0; k < even.length; k++) {
            even[k] = 2 * k;
            odd[k] = 2 * k + 1;
        }
        EVEN_INTS = IntVector.fromArray(I, even, 0);
        ODD_INTS = IntVector.fromArray(I, odd, 0);
        for (int k = 0; k < HALVES.length; k++) HALVES[k] = VectorShuffle.iota(F, 1 << k, 1, true);
        if (supported()) {
            for (int bits = 1; bits <= 8; bits++) {
                PICK[bits] = unitPicks(bits, L / 8, 32);
                PICK_UNITS[bits] = unitPicks(bits, L == 16 ? 8 : 0, 8);
            }
        }
    }

    private AffineEncoding() {
    }

    /** The byte select gathering bytes 0 .. bits − 1 of {@code units} 8-code units, {@code stride} bytes apart, to the front. */
    private static VectorShuffle<Byte> unitPicks(int bits, int units, int stride) {
        int[] pick = new int[BYTES.length()];
        for (int k = 0; k < units * bits; k++) pick[k] = stride * (k / bits) + k % bits;
        return VectorShuffle.fromArray(BYTES, pick, 0);
    }

    /** True when this machine's vectors hold whole 8-code units (8 or 16 lanes) of one species shape. */
    public static boolean supported() {
        return (L == 8 || L == 16) && I.length() == L && LONGS.length() == L / 2 && BYTES.length() == 4 * L;
    }

    /** Codes per vector: {@link #pack} takes whole vectors of codes. */
    public static int lanes() {
        return L;
    }

    /** True when groups of {@code groupSize} are whole vectors here. */
    public static boolean supports(int groupSize) {
        return supported() && groupSize % L == 0 && groupSize % 32 == 0;
    }

    /**
     * Quantizes {@code w[0..n)} (whole groups of {@code groupSize}, see {@link #supports}) to
     * {@code bits}-bit codes packed LSB first from byte {@code packedByte} of {@code packed}
     * ({@code n·bits/8} bytes), with each group's f32 scale and bias in {@code scales} and
     * {@code biases}. {@code lo} and {@code hi} are scratch; the four arrays hold at least
     * {@code n/groupSize} rounded up to a multiple of L.
     */
    public static void quantize(float[] w, int n, int groupSize, int bits, float[] lo, float[] hi, float[] scales,
                                float[] biases, MemorySegment packed, long packedByte) {
        int groups = n / groupSize;
        // three small methods, not one: C2 stops inlining Vector API calls in a large one, and a
        // vector that crosses a call it did not inline is boxed; only arrays and scalars cross these
        scalesAndBiases(w, groups, groupSize, bits, lo, hi, scales, biases);
        if (bits == 8) codes8(w, groups, groupSize, scales, biases, packed, packedByte);
        else if (bits == 4 && L == 16) codes4(w, groups, groupSize, scales, biases, packed, packedByte);
        else codes(w, groups, groupSize, bits, scales, biases, packed, packedByte);
    }

    /** True when {@link #quantizeBf16} applies: 16 lanes, groups of 32, 64 or 128. */
    public static boolean quantizesBf16(int groupSize) {
        return supported() && L == 16 && (groupSize == 32 || groupSize % 64 == 0);
    }

    /** Length of {@link #quantizeBf16}'s two scratch arrays for {@code n} values in groups of {@code groupSize}. */
    public static int bf16Scratch(int n, int groupSize) {
        int units = n / Math.max(64, groupSize);
        return (units + 15) / 16 * 16 * L;
    }

    /**
     * {@link #quantize} of {@code n} bf16 values (whole groups) read from byte {@code byteOff} of
     * {@code src}: the same codes, scales and biases, in three passes, with lane k of each 64-value
     * block's four vectors holding values 4k, 4k + 1, 4k + 2 and 4k + 3 (two int loads, two
     * two-vector selects). (1) Widen into {@code values}, keeping one min and one max vector per 64
     * values (per group of 128; per two groups of 32) in {@code mins}/{@code maxs}. (2) Fold 16 groups'
     * vectors into one vector of their extremes in lanes (four levels of blend, swap and compare
     * instead of a horizontal reduction per group), then 16 scales and biases at once. (3) Codes:
     * rint by adding 1.5·2²³ and keeping the float's bits (no float-to-int conversion and its NaN
     * fix-ups), clamped as biased ints; a lane's four codes make one int, a long lane's two ints 8
     * codes (bits bytes), and one byte select gathers the block's bytes. Blocks are stored whole
     * (the next one overwrites the tail), the last few copied. Returns false, having written nothing to
     * {@code packed}, when a value is NaN or infinite or the sum of all overflows: {@link #quantize}
     * then keeps MLX's exact NaN bits.
     */
    public static boolean quantizeBf16(MemorySegment src, long byteOff, int n, int groupSize, int bits, float[] values,
                                       float[] mins, float[] maxs, float[] scales, float[] biases, MemorySegment packed,
                                       long packedByte) {
        int unit = Math.max(64, groupSize);
        int units = n / unit;
        if (!widenWithExtremes(src, byteOff, n, unit, values, mins, maxs)) return false;
        float nBins = (1 << bits) - 1;
        int perFold = groupSize == 32 ? 8 : 16; // unit vectors per 16 groups
        for (int u0 = 0, g0 = 0; u0 < units; u0 += perFold, g0 += L) {
            for (int u = units; u < u0 + perFold; u++) { // a short last fold: repeat a finite unit
                System.arraycopy(mins, 0, mins, u * L, L);
                System.arraycopy(maxs, 0, maxs, u * L, L);
            }
            if (perFold == 16) foldPairs(mins, maxs, u0 * L, 8, SWAP8, UPPER8);
            foldPairs(mins, maxs, u0 * L, 4, SWAP4, UPPER4);
            foldPairs(mins, maxs, u0 * L, 2, SWAP2, UPPER2);
            foldPairs(mins, maxs, u0 * L, 1, SWAP1, UPPER1);
            laneParameters(FloatVector.fromArray(F, mins, u0 * L).rearrange(BIT_REVERSED),
                    FloatVector.fromArray(F, maxs, u0 * L).rearrange(BIT_REVERSED), nBins, scales, biases, g0);
        }
        codesFourWay(values, n, groupSize, bits, scales, biases, packed, packedByte);
        return true;
    }

    /** Pass (1) of {@link #quantizeBf16}; false when the values' sum is not finite. */
    private static boolean widenWithExtremes(MemorySegment src, long byteOff, int n, int unit, float[] values, float[] mins,
                                             float[] maxs) {
        FloatVector sum = FloatVector.zero(F);
        for (int base = 0; base < n; base += 64) {
            IntVector a = IntVector.fromMemorySegment(I, src, byteOff + 2L * base, ByteOrder.LITTLE_ENDIAN);
            IntVector b = IntVector.fromMemorySegment(I, src, byteOff + 2L * base + 64, ByteOrder.LITTLE_ENDIAN);
            IntVector p = EVEN_INTS.selectFrom(a, b); // lane k: values 4k, 4k + 1
            IntVector q = ODD_INTS.selectFrom(a, b);  // lane k: values 4k + 2, 4k + 3
            FloatVector v0 = p.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            FloatVector v1 = p.and(0xFFFF0000).reinterpretAsFloats();
            FloatVector v2 = q.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            FloatVector v3 = q.and(0xFFFF0000).reinterpretAsFloats();
            v0.intoArray(values, base);
            v1.intoArray(values, base + L);
            v2.intoArray(values, base + 2 * L);
            v3.intoArray(values, base + 3 * L);
            sum = sum.add(v0.add(v1).add(v2.add(v3)));
            FloatVector lo01 = v0.blend(v1, v1.compare(VectorOperators.LT, v0));
            FloatVector lo23 = v2.blend(v3, v3.compare(VectorOperators.LT, v2));
            FloatVector hi01 = v0.blend(v1, v1.compare(VectorOperators.GT, v0));
            FloatVector hi23 = v2.blend(v3, v3.compare(VectorOperators.GT, v2));
            FloatVector lo = lo01.blend(lo23, lo23.compare(VectorOperators.LT, lo01));
            FloatVector hi = hi01.blend(hi23, hi23.compare(VectorOperators.GT, hi01));
            int at = base / unit * L;
            if (base % unit != 0) { // a later block of a group of 128: merged with the earlier ones
                FloatVector mn = FloatVector.fromArray(F, mins, at);
                FloatVector mx = FloatVector.fromArray(F, maxs, at);
                lo = mn.blend(lo, lo.compare(VectorOperators.LT, mn));
                hi = mx.blend(hi, hi.compare(VectorOperators.GT, mx));
            }
            lo.intoArray(mins, at);
            hi.intoArray(maxs, at);
        }
        return sum.test(VectorOperators.IS_FINITE).allTrue();
    }

    /**
     * One level of {@link #quantizeBf16}'s fold: vectors 2i and 2i + 1 from {@code at} (i below
     * {@code pairs}) merge into vector i. Lanes whose level bit ({@code upper}) is clear take the first
     * one's lanes, the others the second's, each the extreme of itself and its partner lane
     * ({@code swap}). After the levels of 8, 4, 2 and 1 lanes, lane bitreverse(g) holds group g.
     */
    private static void foldPairs(float[] mins, float[] maxs, int at, int pairs, VectorShuffle<Float> swap,
                                  VectorMask<Float> upper) {
        for (int i = 0; i < pairs; i++) {
            int a = at + 2 * i * L;
            int b = a + L;
            FloatVector an = FloatVector.fromArray(F, mins, a);
            FloatVector bn = FloatVector.fromArray(F, mins, b);
            FloatVector un = an.blend(bn, upper);
            FloatVector wn = bn.blend(an, upper).rearrange(swap);
            un.blend(wn, wn.compare(VectorOperators.LT, un)).intoArray(mins, at + i * L);
            FloatVector ax = FloatVector.fromArray(F, maxs, a);
            FloatVector bx = FloatVector.fromArray(F, maxs, b);
            FloatVector ux = ax.blend(bx, upper);
            FloatVector wx = bx.blend(ax, upper).rearrange(swap);
            ux.blend(wx, wx.compare(VectorOperators.GT, ux)).intoArray(maxs, at + i * L);
        }
    }

    /** Pass (3) of {@link #quantizeBf16}: codes of {@code values} in its four-way order, packed and stored. */
    private static void codesFourWay(float[] values, int n, int groupSize, int bits, float[] scales, float[] biases,
                                     MemorySegment packed, long at) {
        int top = BIASED_ZERO + (1 << bits) - 1;
        int excess = BIASED_ZERO * (1 + (1 << bits) + (1 << 2 * bits) + (1 << 3 * bits)); // wraps, as the sums do
        int step = 8 * bits;
        long end = at + (long) n / 64 * step;
        VectorShuffle<Byte> pick = PICK_UNITS[bits];
        int groupShift = Integer.numberOfTrailingZeros(groupSize);
        int upperGroup = groupSize == 32 ? 1 : 0; // groups of 32: the upper 8 lanes are the next group's
        for (int base = 0; base < n; base += 64, at += step) {
            int g = base >>> groupShift;
            FloatVector vb = FloatVector.broadcast(F, biases[g]).blend(biases[g + upperGroup], UPPER8);
            FloatVector vs = FloatVector.broadcast(F, scales[g]).blend(scales[g + upperGroup], UPPER8);
            IntVector quad = biasedCode(values, base, vb, vs, top)
                    .add(biasedCode(values, base + L, vb, vs, top).lanewise(VectorOperators.LSHL, bits))
                    .add(biasedCode(values, base + 2 * L, vb, vs, top).lanewise(VectorOperators.LSHL, 2 * bits))
                    .add(biasedCode(values, base + 3 * L, vb, vs, top).lanewise(VectorOperators.LSHL, 3 * bits))
                    .sub(excess);                                                   // lane k: codes 4k .. 4k + 3
            ByteVector block;
            if (bits == 8) {
                block = quad.reinterpretAsBytes();
            } else {
                LongVector x = quad.reinterpretAsLongs();                            // 8 codes per long lane
                x = x.and(0xFFFFFFFFL).or(x.lanewise(VectorOperators.LSHR, 32).lanewise(VectorOperators.LSHL, 4 * bits));
                block = x.reinterpretAsBytes().rearrange(pick);                   // their bits bytes, gathered
            }
            if (at + 64 <= end) { // whole: the next block overwrites the tail
                block.intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN);
            } else {              // the last blocks: their own bytes only
                storeFirst(block, packed, at, step);
            }
        }
    }

    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * Stores the first {@code count} bytes of {@code bytes} at {@code at} and nothing past them: whole longs,
     * then single bytes. Neither a masked byte store (no AVX2 instruction: it ran lane by lane in Java) nor
     * an array to copy out of (an allocation per call).
     */
    private static void storeFirst(ByteVector bytes, MemorySegment packed, long at, int count) {
        LongVector longs = bytes.reinterpretAsLongs();
        int whole = count >>> 3;
        for (int i = 0; i < whole; i++) packed.set(LONG_LE, at + 8L * i, longs.lane(i));
        if ((count & 7) != 0) {
            long rest = longs.lane(whole);
            for (int b = 8 * whole; b < count; b++, rest >>>= 8) packed.set(ValueLayout.JAVA_BYTE, at + b, (byte) rest);
        }
    }

    /** The code of L values from {@code w[at]} plus {@link #BIASED_ZERO}: rint((w − bias)/scale) clamped to [0, 2^bits − 1]. */
    private static IntVector biasedCode(float[] w, int at, FloatVector bias, FloatVector scale, int top) {
        // x + 1.5·2²³ rounds x to an integer (ties to even) kept in the low mantissa bits when |x| < 2²²;
        // beyond that the bits fall past either end of the clamp, as the saturated integer would
        return FloatVector.fromArray(F, w, at).sub(bias).div(scale).add(RINT).reinterpretAsInts().max(BIASED_ZERO).min(top);
    }

    /**
     * Each group's minimum and maximum, then MLX's scale and bias of L groups at once, the scalar
     * twin's branches as blends. One method with one hot loop, so that C2 compiles it early.
     */
    private static void scalesAndBiases(float[] w, int groups, int groupSize, int bits, float[] lo, float[] hi, float[] scales,
                                        float[] biases) {
        float nBins = (1 << bits) - 1;
        for (int g0 = 0; g0 < groups; g0 += L) {
            int end = Math.min(groups, g0 + L);
            // compare-and-blend min/max: Java's min/max (NaN first, −0 below +0) cost twice as much here, and
            // the sign of a zero extreme never changes a scale or bias; a NaN anywhere sends the block to them
            FloatVector sum = FloatVector.zero(F);
            for (int g = g0; g < end; g++) {
                int start = g * groupSize;
                FloatVector mn = FloatVector.fromArray(F, w, start);
                FloatVector mx = mn;
                sum = sum.add(mn);
                for (int i = L; i < groupSize; i += L) {
                    FloatVector v = FloatVector.fromArray(F, w, start + i);
                    sum = sum.add(v);
                    mn = mn.blend(v, v.compare(VectorOperators.LT, mn));
                    mx = mx.blend(v, v.compare(VectorOperators.GT, mx));
                }
                for (int h = L / 2; h > 0; h >>>= 1) {
                    FloatVector a = mn.rearrange(HALVES[Integer.numberOfTrailingZeros(h)]);
                    FloatVector b = mx.rearrange(HALVES[Integer.numberOfTrailingZeros(h)]);
                    mn = mn.blend(a, a.compare(VectorOperators.LT, mn));
                    mx = mx.blend(b, b.compare(VectorOperators.GT, mx));
                }
                lo[g] = mn.lane(0);
                hi[g] = mx.lane(0);
            }
            if (!sum.test(VectorOperators.IS_FINITE).allTrue()) { // a NaN or infinity (or an overflowing sum): the scalar twin
                exactGroups(w, g0, end, groupSize, bits, scales, biases);
                continue;
            }
            laneParameters(FloatVector.fromArray(F, lo, g0), FloatVector.fromArray(F, hi, g0), nBins, scales, biases, g0);
        }
    }

    /** MLX's scale and bias of L groups from their minima and maxima in lanes, stored from group {@code g0}. */
    private static void laneParameters(FloatVector wMin, FloatVector wMax, float nBins, float[] scales, float[] biases, int g0) {
        VectorMask<Float> minIsEdge = wMin.abs().compare(VectorOperators.GT, wMax.abs());
        FloatVector scale = wMax.sub(wMin).div(nBins).max(1e-7f);
        scale = scale.neg().blend(scale, minIsEdge);
        FloatVector edge = wMax.blend(wMin, minIsEdge);
        // q0 = Math.rint(edge / scale), exact for every float: from 2²³ on, floats are integers already
        FloatVector t = edge.div(scale);
        FloatVector a = t.abs();
        IntVector sign = t.reinterpretAsInts().and(0x80000000);
        FloatVector r = a.add(TWO_23).sub(TWO_23).reinterpretAsInts().or(sign).reinterpretAsFloats();
        FloatVector q0 = t.blend(r, a.compare(VectorOperators.LT, TWO_23));
        VectorMask<Float> nonZero = q0.compare(VectorOperators.NE, 0f);
        scale.blend(edge.div(q0), nonZero).intoArray(scales, g0);
        FloatVector.zero(F).blend(edge, nonZero).intoArray(biases, g0);
    }

    /** Scales and biases of groups {@code [from, to)} by {@link AffineCodes#quantizeRow}'s scalar arithmetic, NaN bits included. */
    private static void exactGroups(float[] w, int from, int to, int groupSize, int bits, float[] scales, float[] biases) {
        float nBins = (1 << bits) - 1;
        for (int g = from; g < to; g++) {
            float wMin = Float.POSITIVE_INFINITY;
            float wMax = Float.NEGATIVE_INFINITY;
            for (int i = g * groupSize; i < (g + 1) * groupSize; i++) {
                wMax = Math.max(wMax, w[i]);
                wMin = Math.min(wMin, w[i]);
            }
            AffineCodes.groupParameters(wMin, wMax, nBins, scales, biases, g);
        }
    }

    /** rint((w − bias)/scale) clamped to [0, 2^bits − 1]: the codes of L values from {@code w[at]}. */
    private static IntVector codesAt(float[] w, int at, FloatVector bias, FloatVector scale, int top) {
        FloatVector q = FloatVector.fromArray(F, w, at).sub(bias).div(scale).add(RINT).sub(RINT);
        // clamped after the conversion, which saturates and sends NaN to 0 as the float clamp then (int) would
        return ((IntVector) q.convert(VectorOperators.F2I, 0)).max(0).min(top);
    }

    /** Codes of widths below 8, packed in registers (see the class comment). */
    private static void codes(float[] w, int groups, int groupSize, int bits, float[] scales, float[] biases,
                              MemorySegment packed, long at) {
        int top = (1 << bits) - 1;
        int step = L / 8 * bits;
        long pairMask = (1L << 2 * bits) - 1;
        VectorShuffle<Byte> pick = PICK[bits];
        long last = at + (long) groups * groupSize / L * step; // the run's end: whole-vector stores stop short of it
        for (int g = 0; g < groups; g++) {
            FloatVector vb = FloatVector.broadcast(F, biases[g]);
            FloatVector vs = FloatVector.broadcast(F, scales[g]);
            for (int i = g * groupSize, end = i + groupSize; i < end; i += L, at += step) {
                LongVector x = codesAt(w, i, vb, vs, top).reinterpretAsLongs();
                x = x.or(x.lanewise(VectorOperators.LSHR, 32 - bits)).and(pairMask);        // 2 codes per long lane
                x = x.or(x.rearrange(NEXT1).lanewise(VectorOperators.LSHL, 2 * bits));      // 4 in the even lanes
                x = x.or(x.rearrange(NEXT2).lanewise(VectorOperators.LSHL, 4 * bits));      // 8 in every fourth lane
                ByteVector bytes = x.reinterpretAsBytes().rearrange(pick);
                // whole vectors while one fits before the run's end (the next store overwrites the tail), as in pack;
                // then only its own bytes (a one-token row of 64 4-bit codes on eight lanes: seven of its eight stores)
                if (at + BYTES.length() <= last) bytes.intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN);
                else storeFirst(bytes, packed, at, step);
            }
        }
    }

    /**
     * Packs {@code codes[0..n)} (n a multiple of L, each code below 2^bits, bits 1 to 8) LSB first into
     * the {@code n·bits/8} bytes from {@code at}: the stream {@link AffineCodes#packRow} writes, for
     * other code producers (the codebook encoder).
     */
    public static void pack(int[] codes, int n, int bits, MemorySegment packed, long at) {
        pack(codes, n, bits, packed, at, at + (long) n * bits / 8);
    }

    /**
     * {@link #pack(int[], int, int, MemorySegment, long)} where the bytes of {@code packed} up to
     * {@code writable} (past the codes' own) may be overwritten: a staging buffer with room for
     * one more vector takes whole-vector stores only.
     */
    public static void pack(int[] codes, int n, int bits, MemorySegment packed, long at, long writable) {
        if (bits == 8) {
            for (int i = 0; i < n; i += L, at += L) {
                IntVector.fromArray(I, codes, i).convertShape(VectorOperators.I2B, QUARTER, 0)
                        .intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN);
            }
            return;
        }
        if (bits == 4 && L == 16) { // two codes per byte: pairs in long lanes, narrowed
            for (int i = 0; i < n; i += L, at += L / 2) {
                LongVector x = IntVector.fromArray(I, codes, i).reinterpretAsLongs();
                x.or(x.lanewise(VectorOperators.LSHR, 28)).convertShape(VectorOperators.L2B, EIGHTH, 0)
                        .intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN);
            }
            return;
        }
        int step = L / 8 * bits;
        long end = Math.max(writable, at + (long) n / L * step);
        long pairMask = (1L << 2 * bits) - 1;
        VectorShuffle<Byte> pick = PICK[bits];
        for (int i = 0; i < n; i += L, at += step) {
            LongVector x = IntVector.fromArray(I, codes, i).reinterpretAsLongs();
            x = x.or(x.lanewise(VectorOperators.LSHR, 32 - bits)).and(pairMask);
            x = x.or(x.rearrange(NEXT1).lanewise(VectorOperators.LSHL, 2 * bits));
            x = x.or(x.rearrange(NEXT2).lanewise(VectorOperators.LSHL, 4 * bits));
            ByteVector bytes = x.reinterpretAsBytes().rearrange(pick);
            // whole vectors while one fits before the end (the next store overwrites the tail): a masked
            // byte store ran lane by lane in Java here (a third of a 3-bit TurboQuant encode)
            if (at + BYTES.length() <= end) bytes.intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN);
            else storeFirst(bytes, packed, at, step);
        }
    }

    /** 4-bit codes: two per byte, paired in long lanes and narrowed, no byte shuffle. */
    private static void codes4(float[] w, int groups, int groupSize, float[] scales, float[] biases, MemorySegment packed,
                               long at) {
        for (int g = 0; g < groups; g++) {
            FloatVector vb = FloatVector.broadcast(F, biases[g]);
            FloatVector vs = FloatVector.broadcast(F, scales[g]);
            for (int i = g * groupSize, end = i + groupSize; i < end; i += L, at += L / 2) {
                LongVector x = codesAt(w, i, vb, vs, 15).reinterpretAsLongs();
                x.or(x.lanewise(VectorOperators.LSHR, 28)).convertShape(VectorOperators.L2B, EIGHTH, 0)
                        .intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN);
            }
        }
    }

    /** 8-bit codes: one byte each, narrowed and stored. */
    private static void codes8(float[] w, int groups, int groupSize, float[] scales, float[] biases, MemorySegment packed,
                               long at) {
        for (int g = 0; g < groups; g++) {
            FloatVector vb = FloatVector.broadcast(F, biases[g]);
            FloatVector vs = FloatVector.broadcast(F, scales[g]);
            for (int i = g * groupSize, end = i + groupSize; i < end; i += L, at += L) {
                codesAt(w, i, vb, vs, 255).convertShape(VectorOperators.I2B, QUARTER, 0)
                        .intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN);
            }
        }
    }
}
