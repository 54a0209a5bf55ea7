package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
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
 * each unit's {@code bits} bytes together for one masked store. Stateless; tables immutable.
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
    /** Lane i ← lane i + 2^k (mod L): the halving steps of a lane reduction. */
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Float>[] HALVES = new VectorShuffle[Integer.numberOfTrailingZeros(L) + 1];
    private static final VectorShuffle<Long> NEXT1 = VectorShuffle.iota(LONGS, 1, 1, true);
    private static final VectorShuffle<Long> NEXT2 = VectorShuffle.iota(LONGS, 2, 1, true);
    /** Per width: the byte shuffle gathering each unit's bytes to the front, and the mask of those bytes. */
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Byte>[] PICK = new VectorShuffle[9];
    @SuppressWarnings("unchecked")
    private static final VectorMask<Byte>[] FRONT = new VectorMask[9];
    /** Per width: bytes 0 .. bits − 1 of each even long lane, gathered to the front (8-code units of interleaved codes). */
    @SuppressWarnings("unchecked")
    private static final VectorShuffle<Byte>[] PICK16 = new VectorShuffle[9];

    static {
        for (int k = 0; k < HALVES.length; k++) HALVES[k] = VectorShuffle.iota(F, 1 << k, 1, true);
        if (supported()) {
            int bytes = BYTES.length();
            for (int bits = 1; bits <= 8; bits++) {
                int[] pick = new int[bytes];
                for (int k = 0; k < bytes; k++) pick[k] = k < bits * (L / 8) ? 32 * (k / bits) + k % bits : 0;
                PICK[bits] = VectorShuffle.fromArray(BYTES, pick, 0);
                FRONT[bits] = BYTES.indexInRange(0, bits * (L / 8));
                int[] pick16 = new int[bytes];
                for (int k = 0; k < bytes; k++) pick16[k] = k < 4 * bits && L == 16 ? 16 * (k / bits) + k % bits : 0;
                PICK16[bits] = VectorShuffle.fromArray(BYTES, pick16, 0);
            }
        }
    }

    private AffineEncoding() {
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

    /**
     * True when {@link #loadInterleavedBf16} and {@link #quantizeInterleaved} apply: 16 lanes and
     * groups of whole 32-value blocks.
     */
    public static boolean interleaves(int groupSize) {
        return supported() && L == 16 && groupSize % 32 == 0;
    }

    /**
     * Widens {@code n} bf16 values (whole 32-value blocks) at byte {@code byteOff} of {@code src}
     * into {@code dst} with each block's even values first, then its odd ones:
     * {@code dst[32b + j] = x[32b + 2j]}, {@code dst[32b + 16 + j] = x[32b + 2j + 1]}. That is what one
     * int load of 32 bf16 values holds anyway (a shift and a mask, no shuffles), group minima, maxima
     * and codes do not depend on the order within a group, and in this order the two codes of each
     * output pair sit in the same lane of two vectors ({@link #quantizeInterleaved}).
     */
    public static void loadInterleavedBf16(MemorySegment src, long byteOff, int n, float[] dst) {
        for (int base = 0; base < n; base += 32) {
            IntVector pairs = IntVector.fromMemorySegment(I, src, byteOff + 2L * base, ByteOrder.LITTLE_ENDIAN);
            pairs.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().intoArray(dst, base);
            pairs.and(0xFFFF0000).reinterpretAsFloats().intoArray(dst, base + 16);
        }
    }

    /** {@link #quantize} of values in {@link #loadInterleavedBf16}'s order: the same codes, scales, biases and bytes. */
    public static void quantizeInterleaved(float[] w, int n, int groupSize, int bits, float[] lo, float[] hi, float[] scales,
                                           float[] biases, MemorySegment packed, long packedByte) {
        int groups = n / groupSize;
        scalesAndBiases(w, groups, groupSize, bits, lo, hi, scales, biases);
        interleaved(w, groups, groupSize, bits, scales, biases, packed, packedByte);
    }

    /**
     * Interleaved codes of every width, 32 at a time: lane k of the even and odd codes holds codes 2k
     * and 2k + 1, OR-ed into 2·bits bits; lanes paired as longs (4 codes), long lanes paired once
     * more (8 codes, {@code bits} bytes, in the even long lanes), and those bytes gathered for one
     * masked store. One loop for all widths, the width only in shift counts and table entries: a loop
     * C2 compiled for some widths traps back to the interpreter when another arrives (measured:
     * separate 2-, 4- and 8-bit loops stayed interpreted through the bench's warm-up).
     */
    private static void interleaved(float[] w, int groups, int groupSize, int bits, float[] scales, float[] biases,
                                    MemorySegment packed, long at) {
        int top = (1 << bits) - 1;
        VectorShuffle<Byte> pick = PICK16[bits];
        VectorMask<Byte> front = BYTES.indexInRange(0, 4 * bits);
        for (int g = 0; g < groups; g++) {
            FloatVector vb = FloatVector.broadcast(F, biases[g]);
            FloatVector vs = FloatVector.broadcast(F, scales[g]);
            for (int i = g * groupSize, end = i + groupSize; i < end; i += 32, at += 4L * bits) {
                IntVector pair = codesAt(w, i, vb, vs, top).or(codesAt(w, i + 16, vb, vs, top).lanewise(VectorOperators.LSHL, bits));
                LongVector x = pair.reinterpretAsLongs();
                x = x.and(0xFFFFFFFFL).or(x.lanewise(VectorOperators.LSHR, 32).lanewise(VectorOperators.LSHL, 2 * bits)); // 4 codes
                x = x.or(x.rearrange(NEXT1).lanewise(VectorOperators.LSHL, 4 * bits));                                // 8 in even lanes
                x.reinterpretAsBytes().rearrange(pick).intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN, front);
            }
        }
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
            FloatVector wMin = FloatVector.fromArray(F, lo, g0);
            FloatVector wMax = FloatVector.fromArray(F, hi, g0);
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
        VectorMask<Byte> front = FRONT[bits];
        for (int g = 0; g < groups; g++) {
            FloatVector vb = FloatVector.broadcast(F, biases[g]);
            FloatVector vs = FloatVector.broadcast(F, scales[g]);
            for (int i = g * groupSize, end = i + groupSize; i < end; i += L, at += step) {
                LongVector x = codesAt(w, i, vb, vs, top).reinterpretAsLongs();
                x = x.or(x.lanewise(VectorOperators.LSHR, 32 - bits)).and(pairMask);        // 2 codes per long lane
                x = x.or(x.rearrange(NEXT1).lanewise(VectorOperators.LSHL, 2 * bits));      // 4 in the even lanes
                x = x.or(x.rearrange(NEXT2).lanewise(VectorOperators.LSHL, 4 * bits));      // 8 in every fourth lane
                x.reinterpretAsBytes().rearrange(pick).intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN, front);
            }
        }
    }

    /**
     * Packs {@code codes[0..n)} (n a multiple of L, each code below 2^bits, bits 1 to 8) LSB first into
     * the {@code n·bits/8} bytes from {@code at}: the stream {@link AffineCodes#packRow} writes, for
     * other code producers (the codebook encoder).
     */
    public static void pack(int[] codes, int n, int bits, MemorySegment packed, long at) {
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
        long pairMask = (1L << 2 * bits) - 1;
        VectorShuffle<Byte> pick = PICK[bits];
        VectorMask<Byte> front = FRONT[bits];
        for (int i = 0; i < n; i += L, at += step) {
            LongVector x = IntVector.fromArray(I, codes, i).reinterpretAsLongs();
            x = x.or(x.lanewise(VectorOperators.LSHR, 32 - bits)).and(pairMask);
            x = x.or(x.rearrange(NEXT1).lanewise(VectorOperators.LSHL, 2 * bits));
            x = x.or(x.rearrange(NEXT2).lanewise(VectorOperators.LSHL, 4 * bits));
            x.reinterpretAsBytes().rearrange(pick).intoMemorySegment(packed, at, ByteOrder.LITTLE_ENDIAN, front);
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
