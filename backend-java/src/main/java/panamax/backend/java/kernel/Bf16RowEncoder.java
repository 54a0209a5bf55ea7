package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * TurboQuant's encoder for bf16 rows of 64 or 128 values at 1 to 4 bits, one row (or two of 64) per call
 * and in registers throughout. The norm is the input's (the rotation keeps it), so the codes' scale is
 * known while the butterflies run instead of after them: this, not the saved float row, is what made one
 * pass faster than two. The rotation is {@link HadamardVectors#rotateBf16}'s (even and odd halves of
 * int loads, the same stages in the same order, the same bits); the codes are
 * {@link CodebookEncoding#packedCodes}' (compare masks at 1 and 2 bits, the boundaries' cell grid at 3
 * and 4), packed straight from the even and odd halves: bit 2i of a 32-code chunk from the even values'
 * mask and 2i + 1 from the odd values' (1 bit), nibble i from code 2i's two mask bits and code 2i + 1's
 * (2 bits), six bits i from codes 2i and 2i + 1, four such gathered per long lane and the lanes' 12-bit
 * fields by bit extraction (3 bits: no bit-plane deposits), byte i from codes 2i and 2i + 1 (4 bits).
 * No float row is stored or read back.
 *
 * <p>Generated and written out, one method per row length and width: in a loop, a helper method or a
 * vector merged from two branches, C2 left some vector operations unintrinsified (boxed, four times
 * slower).
 */
public final class Bf16RowEncoder {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> BYTES16 = ByteVector.SPECIES_128;
    private static final VectorSpecies<Short> SHORTS128 = ShortVector.SPECIES_128;
    /** The low 12 bits of each 16: four 3-bit code pairs' fields, gathered to 48 bits by {@link Long#compress}. */
    private static final long TWELVE_OF_SIXTEEN = 0x0FFF0FFF0FFF0FFFL;
    /** 1.5·2²³, and its bits (see {@link CodebookEncoding}). */
    private static final float RINT = 12582912f;
    private static final int BIASED_ZERO = 0x4B400000;
    /** Every other bit of 32, and the low bit of every nibble of 64. */
    private static final long EVEN_BITS = 0x55555555L;
    private static final long NIBBLE_BIT = 0x1111111111111111L;
    /** Where a search table with a cell grid keeps 1/w (and k0 after it): see {@link CodebookEncoding#searchTable}. */
    private static final int CELL_SCALE = 16 + 2 * 32;

    private Bf16RowEncoder() {
    }

    /**
     * True when {@link #encode} takes rows of {@code n} codes of {@code bits} with this search table (see
     * {@link CodebookEncoding#packsFromMasks}): 1 to 4 bits (3 and 4 on a cell grid), rows of 64 or 128.
     */
    public static boolean encodes(int n, int bits, int[] table) {
        return bits >= 1 && bits <= 4 && HadamardVectors.rotatesBf16(n) && CodebookEncoding.packsFromMasks(bits, table)
                && (bits <= 2 || table.length == CELL_SCALE + 2);
    }

    /**
     * Two rows of 64 in one call, {@link #encode} of each interleaved (one row's dependent chain leaves the
     * core waiting): the same codes, and their norms into {@code norms[0..1]}. False, with nothing written,
     * when either row is refused.
     */
    public static boolean encodePairOf64(MemorySegment src, long srcByteA, float[] factorsA, long srcByteB, float[] factorsB, int bits,
            int[] table, MemorySegment packed, long atA, long atB, float[] norms) {
        return switch (bits) {
            case 1 -> encode1Of64Pair(src, srcByteA, factorsA, srcByteB, factorsB, table, packed, atA, atB, norms);
            case 2 -> encode2Of64Pair(src, srcByteA, factorsA, srcByteB, factorsB, table, packed, atA, atB, norms);
            case 3 -> encode3Of64Pair(src, srcByteA, factorsA, srcByteB, factorsB, table, packed, atA, atB, norms);
            default -> encode4Of64Pair(src, srcByteA, factorsA, srcByteB, factorsB, table, packed, atA, atB, norms);
        };
    }

    /**
     * Encodes the bf16 row at byte {@code srcByte}: rotated with {@code factors} (from
     * {@link HadamardVectors#bf16Factors}), its {@code bits}-bit codes packed LSB first at byte {@code at}
     * of {@code packed} ({@code n·bits/8} bytes). Returns the row's f32 norm (of the input: equal to the rotated
     * row's up to rounding), or −1 with nothing written when the row holds a NaN or an infinity or its
     * norm overflows (the caller encodes it the general way).
     */
    public static float encode(MemorySegment src, long srcByte, int n, float[] factors, int bits, int[] table, MemorySegment packed, long at) {
        if (n == 128) {
            return switch (bits) {
                case 1 -> encode1Of128(src, srcByte, factors, table, packed, at);
                case 2 -> encode2Of128(src, srcByte, factors, table, packed, at);
                case 3 -> encode3Of128(src, srcByte, factors, table, packed, at);
                default -> encode4Of128(src, srcByte, factors, table, packed, at);
            };
        }
        return switch (bits) {
            case 1 -> encode1Of64(src, srcByte, factors, table, packed, at);
            case 2 -> encode2Of64(src, srcByte, factors, table, packed, at);
            case 3 -> encode3Of64(src, srcByte, factors, table, packed, at);
            default -> encode4Of64(src, srcByte, factors, table, packed, at);
        };
    }

    /** {@link #encode} of 1-bit codes in a row of 128. */
    private static float encode1Of128(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, srcByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, srcByte + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w2 = IntVector.fromMemorySegment(I, src, srcByte + 128L, ByteOrder.LITTLE_ENDIAN);
        IntVector w3 = IntVector.fromMemorySegment(I, src, srcByte + 192L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x2 = w2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y2 = w2.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x3 = w3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y3 = w3.and(0xFFFF0000).reinterpretAsFloats();
        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end
        FloatVector s0 = x0.mul(x0).add(y0.mul(y0));
        FloatVector s1 = x1.mul(x1).add(y1.mul(y1));
        FloatVector s2 = x2.mul(x2).add(y2.mul(y2));
        FloatVector s3 = x3.mul(x3).add(y3.mul(y3));
        float norm = (float) Math.sqrt(s0.add(s1).add(s2.add(s3)).reduceLanes(VectorOperators.ADD));
        float d = Math.max(norm, Float.MIN_NORMAL);
        if (!Float.isFinite(d)) return -1f; // a NaN or infinity in the row, or a norm that overflowed
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector e2 = x2.mul(FloatVector.fromArray(F, factors, 64));
        FloatVector o2 = y2.mul(FloatVector.fromArray(F, factors, 80));
        FloatVector e3 = x3.mul(FloatVector.fromArray(F, factors, 96));
        FloatVector o3 = y3.mul(FloatVector.fromArray(F, factors, 112));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(o2); o2 = t.sub(o2);
        t = e3; e3 = t.add(o3); o3 = t.sub(o3);
        // strides 2 .. 16
        e0 = e0.fma(HadamardVectors.SIGN_1, e0.rearrange(HadamardVectors.SWAP_1));
        o0 = o0.fma(HadamardVectors.SIGN_1, o0.rearrange(HadamardVectors.SWAP_1));
        e1 = e1.fma(HadamardVectors.SIGN_1, e1.rearrange(HadamardVectors.SWAP_1));
        o1 = o1.fma(HadamardVectors.SIGN_1, o1.rearrange(HadamardVectors.SWAP_1));
        e2 = e2.fma(HadamardVectors.SIGN_1, e2.rearrange(HadamardVectors.SWAP_1));
        o2 = o2.fma(HadamardVectors.SIGN_1, o2.rearrange(HadamardVectors.SWAP_1));
        e3 = e3.fma(HadamardVectors.SIGN_1, e3.rearrange(HadamardVectors.SWAP_1));
        o3 = o3.fma(HadamardVectors.SIGN_1, o3.rearrange(HadamardVectors.SWAP_1));
        e0 = e0.fma(HadamardVectors.SIGN_2, e0.rearrange(HadamardVectors.SWAP_2));
        o0 = o0.fma(HadamardVectors.SIGN_2, o0.rearrange(HadamardVectors.SWAP_2));
        e1 = e1.fma(HadamardVectors.SIGN_2, e1.rearrange(HadamardVectors.SWAP_2));
        o1 = o1.fma(HadamardVectors.SIGN_2, o1.rearrange(HadamardVectors.SWAP_2));
        e2 = e2.fma(HadamardVectors.SIGN_2, e2.rearrange(HadamardVectors.SWAP_2));
        o2 = o2.fma(HadamardVectors.SIGN_2, o2.rearrange(HadamardVectors.SWAP_2));
        e3 = e3.fma(HadamardVectors.SIGN_2, e3.rearrange(HadamardVectors.SWAP_2));
        o3 = o3.fma(HadamardVectors.SIGN_2, o3.rearrange(HadamardVectors.SWAP_2));
        e0 = e0.fma(HadamardVectors.SIGN_4, e0.rearrange(HadamardVectors.SWAP_4));
        o0 = o0.fma(HadamardVectors.SIGN_4, o0.rearrange(HadamardVectors.SWAP_4));
        e1 = e1.fma(HadamardVectors.SIGN_4, e1.rearrange(HadamardVectors.SWAP_4));
        o1 = o1.fma(HadamardVectors.SIGN_4, o1.rearrange(HadamardVectors.SWAP_4));
        e2 = e2.fma(HadamardVectors.SIGN_4, e2.rearrange(HadamardVectors.SWAP_4));
        o2 = o2.fma(HadamardVectors.SIGN_4, o2.rearrange(HadamardVectors.SWAP_4));
        e3 = e3.fma(HadamardVectors.SIGN_4, e3.rearrange(HadamardVectors.SWAP_4));
        o3 = o3.fma(HadamardVectors.SIGN_4, o3.rearrange(HadamardVectors.SWAP_4));
        e0 = e0.fma(HadamardVectors.SIGN_8, e0.rearrange(HadamardVectors.SWAP_8));
        o0 = o0.fma(HadamardVectors.SIGN_8, o0.rearrange(HadamardVectors.SWAP_8));
        e1 = e1.fma(HadamardVectors.SIGN_8, e1.rearrange(HadamardVectors.SWAP_8));
        o1 = o1.fma(HadamardVectors.SIGN_8, o1.rearrange(HadamardVectors.SWAP_8));
        e2 = e2.fma(HadamardVectors.SIGN_8, e2.rearrange(HadamardVectors.SWAP_8));
        o2 = o2.fma(HadamardVectors.SIGN_8, o2.rearrange(HadamardVectors.SWAP_8));
        e3 = e3.fma(HadamardVectors.SIGN_8, e3.rearrange(HadamardVectors.SWAP_8));
        o3 = o3.fma(HadamardVectors.SIGN_8, o3.rearrange(HadamardVectors.SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(e3); e3 = t.sub(e3);
        t = o2; o2 = t.add(o3); o3 = t.sub(o3);
        t = e0; e0 = t.add(e2); e2 = t.sub(e2); // stride 64
        t = o0; o0 = t.add(o2); o2 = t.sub(o2);
        t = e1; e1 = t.add(e3); e3 = t.sub(e3);
        t = o1; o1 = t.add(o3); o3 = t.sub(o3);
        FloatVector middle = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * d);
        // a chunk's 32 codes: bit 2i from the even values' compare mask, bit 2i + 1 from the odd values'
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 0L, (int) (Long.expand(e0.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS)
                | Long.expand(o0.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS << 1)));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4L, (int) (Long.expand(e1.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS)
                | Long.expand(o1.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS << 1)));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 8L, (int) (Long.expand(e2.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS)
                | Long.expand(o2.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS << 1)));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 12L, (int) (Long.expand(e3.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS)
                | Long.expand(o3.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS << 1)));
        return norm;
    }

    /** {@link #encode} of 2-bit codes in a row of 128. */
    private static float encode2Of128(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, srcByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, srcByte + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w2 = IntVector.fromMemorySegment(I, src, srcByte + 128L, ByteOrder.LITTLE_ENDIAN);
        IntVector w3 = IntVector.fromMemorySegment(I, src, srcByte + 192L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x2 = w2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y2 = w2.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x3 = w3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y3 = w3.and(0xFFFF0000).reinterpretAsFloats();
        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end
        FloatVector s0 = x0.mul(x0).add(y0.mul(y0));
        FloatVector s1 = x1.mul(x1).add(y1.mul(y1));
        FloatVector s2 = x2.mul(x2).add(y2.mul(y2));
        FloatVector s3 = x3.mul(x3).add(y3.mul(y3));
        float norm = (float) Math.sqrt(s0.add(s1).add(s2.add(s3)).reduceLanes(VectorOperators.ADD));
        float d = Math.max(norm, Float.MIN_NORMAL);
        if (!Float.isFinite(d)) return -1f; // a NaN or infinity in the row, or a norm that overflowed
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector e2 = x2.mul(FloatVector.fromArray(F, factors, 64));
        FloatVector o2 = y2.mul(FloatVector.fromArray(F, factors, 80));
        FloatVector e3 = x3.mul(FloatVector.fromArray(F, factors, 96));
        FloatVector o3 = y3.mul(FloatVector.fromArray(F, factors, 112));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(o2); o2 = t.sub(o2);
        t = e3; e3 = t.add(o3); o3 = t.sub(o3);
        // strides 2 .. 16
        e0 = e0.fma(HadamardVectors.SIGN_1, e0.rearrange(HadamardVectors.SWAP_1));
        o0 = o0.fma(HadamardVectors.SIGN_1, o0.rearrange(HadamardVectors.SWAP_1));
        e1 = e1.fma(HadamardVectors.SIGN_1, e1.rearrange(HadamardVectors.SWAP_1));
        o1 = o1.fma(HadamardVectors.SIGN_1, o1.rearrange(HadamardVectors.SWAP_1));
        e2 = e2.fma(HadamardVectors.SIGN_1, e2.rearrange(HadamardVectors.SWAP_1));
        o2 = o2.fma(HadamardVectors.SIGN_1, o2.rearrange(HadamardVectors.SWAP_1));
        e3 = e3.fma(HadamardVectors.SIGN_1, e3.rearrange(HadamardVectors.SWAP_1));
        o3 = o3.fma(HadamardVectors.SIGN_1, o3.rearrange(HadamardVectors.SWAP_1));
        e0 = e0.fma(HadamardVectors.SIGN_2, e0.rearrange(HadamardVectors.SWAP_2));
        o0 = o0.fma(HadamardVectors.SIGN_2, o0.rearrange(HadamardVectors.SWAP_2));
        e1 = e1.fma(HadamardVectors.SIGN_2, e1.rearrange(HadamardVectors.SWAP_2));
        o1 = o1.fma(HadamardVectors.SIGN_2, o1.rearrange(HadamardVectors.SWAP_2));
        e2 = e2.fma(HadamardVectors.SIGN_2, e2.rearrange(HadamardVectors.SWAP_2));
        o2 = o2.fma(HadamardVectors.SIGN_2, o2.rearrange(HadamardVectors.SWAP_2));
        e3 = e3.fma(HadamardVectors.SIGN_2, e3.rearrange(HadamardVectors.SWAP_2));
        o3 = o3.fma(HadamardVectors.SIGN_2, o3.rearrange(HadamardVectors.SWAP_2));
        e0 = e0.fma(HadamardVectors.SIGN_4, e0.rearrange(HadamardVectors.SWAP_4));
        o0 = o0.fma(HadamardVectors.SIGN_4, o0.rearrange(HadamardVectors.SWAP_4));
        e1 = e1.fma(HadamardVectors.SIGN_4, e1.rearrange(HadamardVectors.SWAP_4));
        o1 = o1.fma(HadamardVectors.SIGN_4, o1.rearrange(HadamardVectors.SWAP_4));
        e2 = e2.fma(HadamardVectors.SIGN_4, e2.rearrange(HadamardVectors.SWAP_4));
        o2 = o2.fma(HadamardVectors.SIGN_4, o2.rearrange(HadamardVectors.SWAP_4));
        e3 = e3.fma(HadamardVectors.SIGN_4, e3.rearrange(HadamardVectors.SWAP_4));
        o3 = o3.fma(HadamardVectors.SIGN_4, o3.rearrange(HadamardVectors.SWAP_4));
        e0 = e0.fma(HadamardVectors.SIGN_8, e0.rearrange(HadamardVectors.SWAP_8));
        o0 = o0.fma(HadamardVectors.SIGN_8, o0.rearrange(HadamardVectors.SWAP_8));
        e1 = e1.fma(HadamardVectors.SIGN_8, e1.rearrange(HadamardVectors.SWAP_8));
        o1 = o1.fma(HadamardVectors.SIGN_8, o1.rearrange(HadamardVectors.SWAP_8));
        e2 = e2.fma(HadamardVectors.SIGN_8, e2.rearrange(HadamardVectors.SWAP_8));
        o2 = o2.fma(HadamardVectors.SIGN_8, o2.rearrange(HadamardVectors.SWAP_8));
        e3 = e3.fma(HadamardVectors.SIGN_8, e3.rearrange(HadamardVectors.SWAP_8));
        o3 = o3.fma(HadamardVectors.SIGN_8, o3.rearrange(HadamardVectors.SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(e3); e3 = t.sub(e3);
        t = o2; o2 = t.add(o3); o3 = t.sub(o3);
        t = e0; e0 = t.add(e2); e2 = t.sub(e2); // stride 64
        t = o0; o0 = t.add(o2); o2 = t.sub(o2);
        t = e1; e1 = t.add(e3); e3 = t.sub(e3);
        t = o1; o1 = t.add(o3); o3 = t.sub(o3);
        FloatVector middle = FloatVector.broadcast(F, Float.intBitsToFloat(table[2]) * d);
        FloatVector low = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * d);
        FloatVector high = FloatVector.broadcast(F, Float.intBitsToFloat(table[3]) * d);
        // a chunk's 32 codes in 64 bits: code 2i's low bit (above the boundary its half picked) at 4i, its high bit
        // (above the middle) at 4i + 1; code 2i + 1's at 4i + 2 and 4i + 3
        VectorMask<Float> ue0 = e0.compare(VectorOperators.GT, middle);
        VectorMask<Float> ne0 = e0.compare(VectorOperators.GT, low.blend(high, ue0));
        VectorMask<Float> uo0 = o0.compare(VectorOperators.GT, middle);
        VectorMask<Float> no0 = o0.compare(VectorOperators.GT, low.blend(high, uo0));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 0L, Long.expand(ne0.toLong(), NIBBLE_BIT) | Long.expand(ue0.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no0.toLong(), NIBBLE_BIT << 2) | Long.expand(uo0.toLong(), NIBBLE_BIT << 3));
        VectorMask<Float> ue1 = e1.compare(VectorOperators.GT, middle);
        VectorMask<Float> ne1 = e1.compare(VectorOperators.GT, low.blend(high, ue1));
        VectorMask<Float> uo1 = o1.compare(VectorOperators.GT, middle);
        VectorMask<Float> no1 = o1.compare(VectorOperators.GT, low.blend(high, uo1));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8L, Long.expand(ne1.toLong(), NIBBLE_BIT) | Long.expand(ue1.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no1.toLong(), NIBBLE_BIT << 2) | Long.expand(uo1.toLong(), NIBBLE_BIT << 3));
        VectorMask<Float> ue2 = e2.compare(VectorOperators.GT, middle);
        VectorMask<Float> ne2 = e2.compare(VectorOperators.GT, low.blend(high, ue2));
        VectorMask<Float> uo2 = o2.compare(VectorOperators.GT, middle);
        VectorMask<Float> no2 = o2.compare(VectorOperators.GT, low.blend(high, uo2));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 16L, Long.expand(ne2.toLong(), NIBBLE_BIT) | Long.expand(ue2.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no2.toLong(), NIBBLE_BIT << 2) | Long.expand(uo2.toLong(), NIBBLE_BIT << 3));
        VectorMask<Float> ue3 = e3.compare(VectorOperators.GT, middle);
        VectorMask<Float> ne3 = e3.compare(VectorOperators.GT, low.blend(high, ue3));
        VectorMask<Float> uo3 = o3.compare(VectorOperators.GT, middle);
        VectorMask<Float> no3 = o3.compare(VectorOperators.GT, low.blend(high, uo3));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 24L, Long.expand(ne3.toLong(), NIBBLE_BIT) | Long.expand(ue3.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no3.toLong(), NIBBLE_BIT << 2) | Long.expand(uo3.toLong(), NIBBLE_BIT << 3));
        return norm;
    }

    /** {@link #encode} of 3-bit codes in a row of 128. */
    private static float encode3Of128(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, srcByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, srcByte + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w2 = IntVector.fromMemorySegment(I, src, srcByte + 128L, ByteOrder.LITTLE_ENDIAN);
        IntVector w3 = IntVector.fromMemorySegment(I, src, srcByte + 192L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x2 = w2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y2 = w2.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x3 = w3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y3 = w3.and(0xFFFF0000).reinterpretAsFloats();
        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end
        FloatVector s0 = x0.mul(x0).add(y0.mul(y0));
        FloatVector s1 = x1.mul(x1).add(y1.mul(y1));
        FloatVector s2 = x2.mul(x2).add(y2.mul(y2));
        FloatVector s3 = x3.mul(x3).add(y3.mul(y3));
        float norm = (float) Math.sqrt(s0.add(s1).add(s2.add(s3)).reduceLanes(VectorOperators.ADD));
        float d = Math.max(norm, Float.MIN_NORMAL);
        float perCell = Float.intBitsToFloat(table[CELL_SCALE]) / d;
        if (!Float.isFinite(d) || !Float.isFinite(perCell)) return -1f; // a NaN or infinity in the row, or a norm that overflowed
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector e2 = x2.mul(FloatVector.fromArray(F, factors, 64));
        FloatVector o2 = y2.mul(FloatVector.fromArray(F, factors, 80));
        FloatVector e3 = x3.mul(FloatVector.fromArray(F, factors, 96));
        FloatVector o3 = y3.mul(FloatVector.fromArray(F, factors, 112));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(o2); o2 = t.sub(o2);
        t = e3; e3 = t.add(o3); o3 = t.sub(o3);
        // strides 2 .. 16
        e0 = e0.fma(HadamardVectors.SIGN_1, e0.rearrange(HadamardVectors.SWAP_1));
        o0 = o0.fma(HadamardVectors.SIGN_1, o0.rearrange(HadamardVectors.SWAP_1));
        e1 = e1.fma(HadamardVectors.SIGN_1, e1.rearrange(HadamardVectors.SWAP_1));
        o1 = o1.fma(HadamardVectors.SIGN_1, o1.rearrange(HadamardVectors.SWAP_1));
        e2 = e2.fma(HadamardVectors.SIGN_1, e2.rearrange(HadamardVectors.SWAP_1));
        o2 = o2.fma(HadamardVectors.SIGN_1, o2.rearrange(HadamardVectors.SWAP_1));
        e3 = e3.fma(HadamardVectors.SIGN_1, e3.rearrange(HadamardVectors.SWAP_1));
        o3 = o3.fma(HadamardVectors.SIGN_1, o3.rearrange(HadamardVectors.SWAP_1));
        e0 = e0.fma(HadamardVectors.SIGN_2, e0.rearrange(HadamardVectors.SWAP_2));
        o0 = o0.fma(HadamardVectors.SIGN_2, o0.rearrange(HadamardVectors.SWAP_2));
        e1 = e1.fma(HadamardVectors.SIGN_2, e1.rearrange(HadamardVectors.SWAP_2));
        o1 = o1.fma(HadamardVectors.SIGN_2, o1.rearrange(HadamardVectors.SWAP_2));
        e2 = e2.fma(HadamardVectors.SIGN_2, e2.rearrange(HadamardVectors.SWAP_2));
        o2 = o2.fma(HadamardVectors.SIGN_2, o2.rearrange(HadamardVectors.SWAP_2));
        e3 = e3.fma(HadamardVectors.SIGN_2, e3.rearrange(HadamardVectors.SWAP_2));
        o3 = o3.fma(HadamardVectors.SIGN_2, o3.rearrange(HadamardVectors.SWAP_2));
        e0 = e0.fma(HadamardVectors.SIGN_4, e0.rearrange(HadamardVectors.SWAP_4));
        o0 = o0.fma(HadamardVectors.SIGN_4, o0.rearrange(HadamardVectors.SWAP_4));
        e1 = e1.fma(HadamardVectors.SIGN_4, e1.rearrange(HadamardVectors.SWAP_4));
        o1 = o1.fma(HadamardVectors.SIGN_4, o1.rearrange(HadamardVectors.SWAP_4));
        e2 = e2.fma(HadamardVectors.SIGN_4, e2.rearrange(HadamardVectors.SWAP_4));
        o2 = o2.fma(HadamardVectors.SIGN_4, o2.rearrange(HadamardVectors.SWAP_4));
        e3 = e3.fma(HadamardVectors.SIGN_4, e3.rearrange(HadamardVectors.SWAP_4));
        o3 = o3.fma(HadamardVectors.SIGN_4, o3.rearrange(HadamardVectors.SWAP_4));
        e0 = e0.fma(HadamardVectors.SIGN_8, e0.rearrange(HadamardVectors.SWAP_8));
        o0 = o0.fma(HadamardVectors.SIGN_8, o0.rearrange(HadamardVectors.SWAP_8));
        e1 = e1.fma(HadamardVectors.SIGN_8, e1.rearrange(HadamardVectors.SWAP_8));
        o1 = o1.fma(HadamardVectors.SIGN_8, o1.rearrange(HadamardVectors.SWAP_8));
        e2 = e2.fma(HadamardVectors.SIGN_8, e2.rearrange(HadamardVectors.SWAP_8));
        o2 = o2.fma(HadamardVectors.SIGN_8, o2.rearrange(HadamardVectors.SWAP_8));
        e3 = e3.fma(HadamardVectors.SIGN_8, e3.rearrange(HadamardVectors.SWAP_8));
        o3 = o3.fma(HadamardVectors.SIGN_8, o3.rearrange(HadamardVectors.SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(e3); e3 = t.sub(e3);
        t = o2; o2 = t.add(o3); o3 = t.sub(o3);
        t = e0; e0 = t.add(e2); e2 = t.sub(e2); // stride 64
        t = o0; o0 = t.add(o2); o2 = t.sub(o2);
        t = e1; e1 = t.add(e3); e3 = t.sub(e3);
        t = o1; o1 = t.add(o3); o3 = t.sub(o3);
        IntVector countLo = IntVector.fromArray(I, table, 16);
        IntVector countHi = IntVector.fromArray(I, table, 32);
        IntVector boundLo = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(d).reinterpretAsInts();
        IntVector boundHi = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(d).reinterpretAsInts();
        FloatVector scale = FloatVector.broadcast(F, perCell);
        FloatVector offset = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);
        IntVector ce0 = e0.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce0 = ce0.selectFrom(countLo, countHi).add(1, e0.compare(VectorOperators.GT, ce0.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co0 = o0.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co0 = co0.selectFrom(countLo, countHi).add(1, o0.compare(VectorOperators.GT, co0.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector ce1 = e1.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce1 = ce1.selectFrom(countLo, countHi).add(1, e1.compare(VectorOperators.GT, ce1.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co1 = o1.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co1 = co1.selectFrom(countLo, countHi).add(1, o1.compare(VectorOperators.GT, co1.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector ce2 = e2.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce2 = ce2.selectFrom(countLo, countHi).add(1, e2.compare(VectorOperators.GT, ce2.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co2 = o2.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co2 = co2.selectFrom(countLo, countHi).add(1, o2.compare(VectorOperators.GT, co2.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector ce3 = e3.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce3 = ce3.selectFrom(countLo, countHi).add(1, e3.compare(VectorOperators.GT, ce3.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co3 = o3.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co3 = co3.selectFrom(countLo, countHi).add(1, o3.compare(VectorOperators.GT, co3.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        // a chunk's 32 codes in 96 bits: code 2i at bit 6i, 2i + 1 at 6i + 3 (six bits per lane); long lane k then
        // holds codes 4k .. 4k + 3 in its low 12 bits (lane 2k's six and lane 2k + 1's shifted down to bit 6),
        // narrowed to shorts and the two halves' 48 bits gathered by bit extraction
        LongVector p0 = co0.lanewise(VectorOperators.LSHL, 3).or(ce0).reinterpretAsLongs();
        LongVector q0 = p0.or(p0.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        long lo0 = Long.compress(q0.lane(0), TWELVE_OF_SIXTEEN), hi0 = Long.compress(q0.lane(1), TWELVE_OF_SIXTEEN);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 0L, lo0 | hi0 << 48);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 8L, (int) (hi0 >>> 16));
        LongVector p1 = co1.lanewise(VectorOperators.LSHL, 3).or(ce1).reinterpretAsLongs();
        LongVector q1 = p1.or(p1.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        long lo1 = Long.compress(q1.lane(0), TWELVE_OF_SIXTEEN), hi1 = Long.compress(q1.lane(1), TWELVE_OF_SIXTEEN);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 12L, lo1 | hi1 << 48);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 20L, (int) (hi1 >>> 16));
        LongVector p2 = co2.lanewise(VectorOperators.LSHL, 3).or(ce2).reinterpretAsLongs();
        LongVector q2 = p2.or(p2.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        long lo2 = Long.compress(q2.lane(0), TWELVE_OF_SIXTEEN), hi2 = Long.compress(q2.lane(1), TWELVE_OF_SIXTEEN);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 24L, lo2 | hi2 << 48);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 32L, (int) (hi2 >>> 16));
        LongVector p3 = co3.lanewise(VectorOperators.LSHL, 3).or(ce3).reinterpretAsLongs();
        LongVector q3 = p3.or(p3.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        long lo3 = Long.compress(q3.lane(0), TWELVE_OF_SIXTEEN), hi3 = Long.compress(q3.lane(1), TWELVE_OF_SIXTEEN);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 36L, lo3 | hi3 << 48);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 44L, (int) (hi3 >>> 16));
        return norm;
    }

    /** {@link #encode} of 4-bit codes in a row of 128. */
    private static float encode4Of128(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, srcByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, srcByte + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w2 = IntVector.fromMemorySegment(I, src, srcByte + 128L, ByteOrder.LITTLE_ENDIAN);
        IntVector w3 = IntVector.fromMemorySegment(I, src, srcByte + 192L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x2 = w2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y2 = w2.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x3 = w3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y3 = w3.and(0xFFFF0000).reinterpretAsFloats();
        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end
        FloatVector s0 = x0.mul(x0).add(y0.mul(y0));
        FloatVector s1 = x1.mul(x1).add(y1.mul(y1));
        FloatVector s2 = x2.mul(x2).add(y2.mul(y2));
        FloatVector s3 = x3.mul(x3).add(y3.mul(y3));
        float norm = (float) Math.sqrt(s0.add(s1).add(s2.add(s3)).reduceLanes(VectorOperators.ADD));
        float d = Math.max(norm, Float.MIN_NORMAL);
        float perCell = Float.intBitsToFloat(table[CELL_SCALE]) / d;
        if (!Float.isFinite(d) || !Float.isFinite(perCell)) return -1f; // a NaN or infinity in the row, or a norm that overflowed
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector e2 = x2.mul(FloatVector.fromArray(F, factors, 64));
        FloatVector o2 = y2.mul(FloatVector.fromArray(F, factors, 80));
        FloatVector e3 = x3.mul(FloatVector.fromArray(F, factors, 96));
        FloatVector o3 = y3.mul(FloatVector.fromArray(F, factors, 112));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(o2); o2 = t.sub(o2);
        t = e3; e3 = t.add(o3); o3 = t.sub(o3);
        // strides 2 .. 16
        e0 = e0.fma(HadamardVectors.SIGN_1, e0.rearrange(HadamardVectors.SWAP_1));
        o0 = o0.fma(HadamardVectors.SIGN_1, o0.rearrange(HadamardVectors.SWAP_1));
        e1 = e1.fma(HadamardVectors.SIGN_1, e1.rearrange(HadamardVectors.SWAP_1));
        o1 = o1.fma(HadamardVectors.SIGN_1, o1.rearrange(HadamardVectors.SWAP_1));
        e2 = e2.fma(HadamardVectors.SIGN_1, e2.rearrange(HadamardVectors.SWAP_1));
        o2 = o2.fma(HadamardVectors.SIGN_1, o2.rearrange(HadamardVectors.SWAP_1));
        e3 = e3.fma(HadamardVectors.SIGN_1, e3.rearrange(HadamardVectors.SWAP_1));
        o3 = o3.fma(HadamardVectors.SIGN_1, o3.rearrange(HadamardVectors.SWAP_1));
        e0 = e0.fma(HadamardVectors.SIGN_2, e0.rearrange(HadamardVectors.SWAP_2));
        o0 = o0.fma(HadamardVectors.SIGN_2, o0.rearrange(HadamardVectors.SWAP_2));
        e1 = e1.fma(HadamardVectors.SIGN_2, e1.rearrange(HadamardVectors.SWAP_2));
        o1 = o1.fma(HadamardVectors.SIGN_2, o1.rearrange(HadamardVectors.SWAP_2));
        e2 = e2.fma(HadamardVectors.SIGN_2, e2.rearrange(HadamardVectors.SWAP_2));
        o2 = o2.fma(HadamardVectors.SIGN_2, o2.rearrange(HadamardVectors.SWAP_2));
        e3 = e3.fma(HadamardVectors.SIGN_2, e3.rearrange(HadamardVectors.SWAP_2));
        o3 = o3.fma(HadamardVectors.SIGN_2, o3.rearrange(HadamardVectors.SWAP_2));
        e0 = e0.fma(HadamardVectors.SIGN_4, e0.rearrange(HadamardVectors.SWAP_4));
        o0 = o0.fma(HadamardVectors.SIGN_4, o0.rearrange(HadamardVectors.SWAP_4));
        e1 = e1.fma(HadamardVectors.SIGN_4, e1.rearrange(HadamardVectors.SWAP_4));
        o1 = o1.fma(HadamardVectors.SIGN_4, o1.rearrange(HadamardVectors.SWAP_4));
        e2 = e2.fma(HadamardVectors.SIGN_4, e2.rearrange(HadamardVectors.SWAP_4));
        o2 = o2.fma(HadamardVectors.SIGN_4, o2.rearrange(HadamardVectors.SWAP_4));
        e3 = e3.fma(HadamardVectors.SIGN_4, e3.rearrange(HadamardVectors.SWAP_4));
        o3 = o3.fma(HadamardVectors.SIGN_4, o3.rearrange(HadamardVectors.SWAP_4));
        e0 = e0.fma(HadamardVectors.SIGN_8, e0.rearrange(HadamardVectors.SWAP_8));
        o0 = o0.fma(HadamardVectors.SIGN_8, o0.rearrange(HadamardVectors.SWAP_8));
        e1 = e1.fma(HadamardVectors.SIGN_8, e1.rearrange(HadamardVectors.SWAP_8));
        o1 = o1.fma(HadamardVectors.SIGN_8, o1.rearrange(HadamardVectors.SWAP_8));
        e2 = e2.fma(HadamardVectors.SIGN_8, e2.rearrange(HadamardVectors.SWAP_8));
        o2 = o2.fma(HadamardVectors.SIGN_8, o2.rearrange(HadamardVectors.SWAP_8));
        e3 = e3.fma(HadamardVectors.SIGN_8, e3.rearrange(HadamardVectors.SWAP_8));
        o3 = o3.fma(HadamardVectors.SIGN_8, o3.rearrange(HadamardVectors.SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        t = e2; e2 = t.add(e3); e3 = t.sub(e3);
        t = o2; o2 = t.add(o3); o3 = t.sub(o3);
        t = e0; e0 = t.add(e2); e2 = t.sub(e2); // stride 64
        t = o0; o0 = t.add(o2); o2 = t.sub(o2);
        t = e1; e1 = t.add(e3); e3 = t.sub(e3);
        t = o1; o1 = t.add(o3); o3 = t.sub(o3);
        IntVector countLo = IntVector.fromArray(I, table, 16);
        IntVector countHi = IntVector.fromArray(I, table, 32);
        IntVector boundLo = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(d).reinterpretAsInts();
        IntVector boundHi = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(d).reinterpretAsInts();
        FloatVector scale = FloatVector.broadcast(F, perCell);
        FloatVector offset = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);
        IntVector ce0 = e0.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce0 = ce0.selectFrom(countLo, countHi).add(1, e0.compare(VectorOperators.GT, ce0.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co0 = o0.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co0 = co0.selectFrom(countLo, countHi).add(1, o0.compare(VectorOperators.GT, co0.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector ce1 = e1.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce1 = ce1.selectFrom(countLo, countHi).add(1, e1.compare(VectorOperators.GT, ce1.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co1 = o1.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co1 = co1.selectFrom(countLo, countHi).add(1, o1.compare(VectorOperators.GT, co1.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector ce2 = e2.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce2 = ce2.selectFrom(countLo, countHi).add(1, e2.compare(VectorOperators.GT, ce2.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co2 = o2.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co2 = co2.selectFrom(countLo, countHi).add(1, o2.compare(VectorOperators.GT, co2.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector ce3 = e3.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce3 = ce3.selectFrom(countLo, countHi).add(1, e3.compare(VectorOperators.GT, ce3.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co3 = o3.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co3 = co3.selectFrom(countLo, countHi).add(1, o3.compare(VectorOperators.GT, co3.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        // a chunk's byte i holds codes 2i (low nibble) and 2i + 1: its even and odd codes
        ce0.or(co0.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, at + 0L, ByteOrder.LITTLE_ENDIAN);
        ce1.or(co1.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, at + 16L, ByteOrder.LITTLE_ENDIAN);
        ce2.or(co2.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, at + 32L, ByteOrder.LITTLE_ENDIAN);
        ce3.or(co3.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, at + 48L, ByteOrder.LITTLE_ENDIAN);
        return norm;
    }

    /** {@link #encode} of 1-bit codes in a row of 64. */
    private static float encode1Of64(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, srcByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, srcByte + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end
        FloatVector s0 = x0.mul(x0).add(y0.mul(y0));
        FloatVector s1 = x1.mul(x1).add(y1.mul(y1));
        float norm = (float) Math.sqrt(s0.add(s1).reduceLanes(VectorOperators.ADD));
        float d = Math.max(norm, Float.MIN_NORMAL);
        if (!Float.isFinite(d)) return -1f; // a NaN or infinity in the row, or a norm that overflowed
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        // strides 2 .. 16
        e0 = e0.fma(HadamardVectors.SIGN_1, e0.rearrange(HadamardVectors.SWAP_1));
        o0 = o0.fma(HadamardVectors.SIGN_1, o0.rearrange(HadamardVectors.SWAP_1));
        e1 = e1.fma(HadamardVectors.SIGN_1, e1.rearrange(HadamardVectors.SWAP_1));
        o1 = o1.fma(HadamardVectors.SIGN_1, o1.rearrange(HadamardVectors.SWAP_1));
        e0 = e0.fma(HadamardVectors.SIGN_2, e0.rearrange(HadamardVectors.SWAP_2));
        o0 = o0.fma(HadamardVectors.SIGN_2, o0.rearrange(HadamardVectors.SWAP_2));
        e1 = e1.fma(HadamardVectors.SIGN_2, e1.rearrange(HadamardVectors.SWAP_2));
        o1 = o1.fma(HadamardVectors.SIGN_2, o1.rearrange(HadamardVectors.SWAP_2));
        e0 = e0.fma(HadamardVectors.SIGN_4, e0.rearrange(HadamardVectors.SWAP_4));
        o0 = o0.fma(HadamardVectors.SIGN_4, o0.rearrange(HadamardVectors.SWAP_4));
        e1 = e1.fma(HadamardVectors.SIGN_4, e1.rearrange(HadamardVectors.SWAP_4));
        o1 = o1.fma(HadamardVectors.SIGN_4, o1.rearrange(HadamardVectors.SWAP_4));
        e0 = e0.fma(HadamardVectors.SIGN_8, e0.rearrange(HadamardVectors.SWAP_8));
        o0 = o0.fma(HadamardVectors.SIGN_8, o0.rearrange(HadamardVectors.SWAP_8));
        e1 = e1.fma(HadamardVectors.SIGN_8, e1.rearrange(HadamardVectors.SWAP_8));
        o1 = o1.fma(HadamardVectors.SIGN_8, o1.rearrange(HadamardVectors.SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        FloatVector middle = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * d);
        // a chunk's 32 codes: bit 2i from the even values' compare mask, bit 2i + 1 from the odd values'
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 0L, (int) (Long.expand(e0.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS)
                | Long.expand(o0.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS << 1)));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4L, (int) (Long.expand(e1.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS)
                | Long.expand(o1.compare(VectorOperators.GT, middle).toLong(), EVEN_BITS << 1)));
        return norm;
    }

    /** {@link #encode} of 2-bit codes in a row of 64. */
    private static float encode2Of64(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, srcByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, srcByte + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end
        FloatVector s0 = x0.mul(x0).add(y0.mul(y0));
        FloatVector s1 = x1.mul(x1).add(y1.mul(y1));
        float norm = (float) Math.sqrt(s0.add(s1).reduceLanes(VectorOperators.ADD));
        float d = Math.max(norm, Float.MIN_NORMAL);
        if (!Float.isFinite(d)) return -1f; // a NaN or infinity in the row, or a norm that overflowed
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        // strides 2 .. 16
        e0 = e0.fma(HadamardVectors.SIGN_1, e0.rearrange(HadamardVectors.SWAP_1));
        o0 = o0.fma(HadamardVectors.SIGN_1, o0.rearrange(HadamardVectors.SWAP_1));
        e1 = e1.fma(HadamardVectors.SIGN_1, e1.rearrange(HadamardVectors.SWAP_1));
        o1 = o1.fma(HadamardVectors.SIGN_1, o1.rearrange(HadamardVectors.SWAP_1));
        e0 = e0.fma(HadamardVectors.SIGN_2, e0.rearrange(HadamardVectors.SWAP_2));
        o0 = o0.fma(HadamardVectors.SIGN_2, o0.rearrange(HadamardVectors.SWAP_2));
        e1 = e1.fma(HadamardVectors.SIGN_2, e1.rearrange(HadamardVectors.SWAP_2));
        o1 = o1.fma(HadamardVectors.SIGN_2, o1.rearrange(HadamardVectors.SWAP_2));
        e0 = e0.fma(HadamardVectors.SIGN_4, e0.rearrange(HadamardVectors.SWAP_4));
        o0 = o0.fma(HadamardVectors.SIGN_4, o0.rearrange(HadamardVectors.SWAP_4));
        e1 = e1.fma(HadamardVectors.SIGN_4, e1.rearrange(HadamardVectors.SWAP_4));
        o1 = o1.fma(HadamardVectors.SIGN_4, o1.rearrange(HadamardVectors.SWAP_4));
        e0 = e0.fma(HadamardVectors.SIGN_8, e0.rearrange(HadamardVectors.SWAP_8));
        o0 = o0.fma(HadamardVectors.SIGN_8, o0.rearrange(HadamardVectors.SWAP_8));
        e1 = e1.fma(HadamardVectors.SIGN_8, e1.rearrange(HadamardVectors.SWAP_8));
        o1 = o1.fma(HadamardVectors.SIGN_8, o1.rearrange(HadamardVectors.SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        FloatVector middle = FloatVector.broadcast(F, Float.intBitsToFloat(table[2]) * d);
        FloatVector low = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * d);
        FloatVector high = FloatVector.broadcast(F, Float.intBitsToFloat(table[3]) * d);
        // a chunk's 32 codes in 64 bits: code 2i's low bit (above the boundary its half picked) at 4i, its high bit
        // (above the middle) at 4i + 1; code 2i + 1's at 4i + 2 and 4i + 3
        VectorMask<Float> ue0 = e0.compare(VectorOperators.GT, middle);
        VectorMask<Float> ne0 = e0.compare(VectorOperators.GT, low.blend(high, ue0));
        VectorMask<Float> uo0 = o0.compare(VectorOperators.GT, middle);
        VectorMask<Float> no0 = o0.compare(VectorOperators.GT, low.blend(high, uo0));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 0L, Long.expand(ne0.toLong(), NIBBLE_BIT) | Long.expand(ue0.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no0.toLong(), NIBBLE_BIT << 2) | Long.expand(uo0.toLong(), NIBBLE_BIT << 3));
        VectorMask<Float> ue1 = e1.compare(VectorOperators.GT, middle);
        VectorMask<Float> ne1 = e1.compare(VectorOperators.GT, low.blend(high, ue1));
        VectorMask<Float> uo1 = o1.compare(VectorOperators.GT, middle);
        VectorMask<Float> no1 = o1.compare(VectorOperators.GT, low.blend(high, uo1));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8L, Long.expand(ne1.toLong(), NIBBLE_BIT) | Long.expand(ue1.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no1.toLong(), NIBBLE_BIT << 2) | Long.expand(uo1.toLong(), NIBBLE_BIT << 3));
        return norm;
    }

    /** {@link #encode} of 3-bit codes in a row of 64. */
    private static float encode3Of64(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, srcByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, srcByte + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end
        FloatVector s0 = x0.mul(x0).add(y0.mul(y0));
        FloatVector s1 = x1.mul(x1).add(y1.mul(y1));
        float norm = (float) Math.sqrt(s0.add(s1).reduceLanes(VectorOperators.ADD));
        float d = Math.max(norm, Float.MIN_NORMAL);
        float perCell = Float.intBitsToFloat(table[CELL_SCALE]) / d;
        if (!Float.isFinite(d) || !Float.isFinite(perCell)) return -1f; // a NaN or infinity in the row, or a norm that overflowed
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        // strides 2 .. 16
        e0 = e0.fma(HadamardVectors.SIGN_1, e0.rearrange(HadamardVectors.SWAP_1));
        o0 = o0.fma(HadamardVectors.SIGN_1, o0.rearrange(HadamardVectors.SWAP_1));
        e1 = e1.fma(HadamardVectors.SIGN_1, e1.rearrange(HadamardVectors.SWAP_1));
        o1 = o1.fma(HadamardVectors.SIGN_1, o1.rearrange(HadamardVectors.SWAP_1));
        e0 = e0.fma(HadamardVectors.SIGN_2, e0.rearrange(HadamardVectors.SWAP_2));
        o0 = o0.fma(HadamardVectors.SIGN_2, o0.rearrange(HadamardVectors.SWAP_2));
        e1 = e1.fma(HadamardVectors.SIGN_2, e1.rearrange(HadamardVectors.SWAP_2));
        o1 = o1.fma(HadamardVectors.SIGN_2, o1.rearrange(HadamardVectors.SWAP_2));
        e0 = e0.fma(HadamardVectors.SIGN_4, e0.rearrange(HadamardVectors.SWAP_4));
        o0 = o0.fma(HadamardVectors.SIGN_4, o0.rearrange(HadamardVectors.SWAP_4));
        e1 = e1.fma(HadamardVectors.SIGN_4, e1.rearrange(HadamardVectors.SWAP_4));
        o1 = o1.fma(HadamardVectors.SIGN_4, o1.rearrange(HadamardVectors.SWAP_4));
        e0 = e0.fma(HadamardVectors.SIGN_8, e0.rearrange(HadamardVectors.SWAP_8));
        o0 = o0.fma(HadamardVectors.SIGN_8, o0.rearrange(HadamardVectors.SWAP_8));
        e1 = e1.fma(HadamardVectors.SIGN_8, e1.rearrange(HadamardVectors.SWAP_8));
        o1 = o1.fma(HadamardVectors.SIGN_8, o1.rearrange(HadamardVectors.SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        IntVector countLo = IntVector.fromArray(I, table, 16);
        IntVector countHi = IntVector.fromArray(I, table, 32);
        IntVector boundLo = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(d).reinterpretAsInts();
        IntVector boundHi = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(d).reinterpretAsInts();
        FloatVector scale = FloatVector.broadcast(F, perCell);
        FloatVector offset = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);
        IntVector ce0 = e0.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce0 = ce0.selectFrom(countLo, countHi).add(1, e0.compare(VectorOperators.GT, ce0.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co0 = o0.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co0 = co0.selectFrom(countLo, countHi).add(1, o0.compare(VectorOperators.GT, co0.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector ce1 = e1.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce1 = ce1.selectFrom(countLo, countHi).add(1, e1.compare(VectorOperators.GT, ce1.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co1 = o1.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co1 = co1.selectFrom(countLo, countHi).add(1, o1.compare(VectorOperators.GT, co1.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        // a chunk's 32 codes in 96 bits: code 2i at bit 6i, 2i + 1 at 6i + 3 (six bits per lane); long lane k then
        // holds codes 4k .. 4k + 3 in its low 12 bits (lane 2k's six and lane 2k + 1's shifted down to bit 6),
        // narrowed to shorts and the two halves' 48 bits gathered by bit extraction
        LongVector p0 = co0.lanewise(VectorOperators.LSHL, 3).or(ce0).reinterpretAsLongs();
        LongVector q0 = p0.or(p0.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        long lo0 = Long.compress(q0.lane(0), TWELVE_OF_SIXTEEN), hi0 = Long.compress(q0.lane(1), TWELVE_OF_SIXTEEN);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 0L, lo0 | hi0 << 48);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 8L, (int) (hi0 >>> 16));
        LongVector p1 = co1.lanewise(VectorOperators.LSHL, 3).or(ce1).reinterpretAsLongs();
        LongVector q1 = p1.or(p1.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        long lo1 = Long.compress(q1.lane(0), TWELVE_OF_SIXTEEN), hi1 = Long.compress(q1.lane(1), TWELVE_OF_SIXTEEN);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 12L, lo1 | hi1 << 48);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, at + 20L, (int) (hi1 >>> 16));
        return norm;
    }

    /** {@link #encode} of 4-bit codes in a row of 64. */
    private static float encode4Of64(MemorySegment src, long srcByte, float[] factors, int[] table, MemorySegment packed, long at) {
        IntVector w0 = IntVector.fromMemorySegment(I, src, srcByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1 = IntVector.fromMemorySegment(I, src, srcByte + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0 = w0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0 = w0.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1 = w1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1 = w1.and(0xFFFF0000).reinterpretAsFloats();
        // the norm from the input (the rotation keeps it): the scale of the codes is ready before the butterflies end
        FloatVector s0 = x0.mul(x0).add(y0.mul(y0));
        FloatVector s1 = x1.mul(x1).add(y1.mul(y1));
        float norm = (float) Math.sqrt(s0.add(s1).reduceLanes(VectorOperators.ADD));
        float d = Math.max(norm, Float.MIN_NORMAL);
        float perCell = Float.intBitsToFloat(table[CELL_SCALE]) / d;
        if (!Float.isFinite(d) || !Float.isFinite(perCell)) return -1f; // a NaN or infinity in the row, or a norm that overflowed
        FloatVector e0 = x0.mul(FloatVector.fromArray(F, factors, 0));
        FloatVector o0 = y0.mul(FloatVector.fromArray(F, factors, 16));
        FloatVector e1 = x1.mul(FloatVector.fromArray(F, factors, 32));
        FloatVector o1 = y1.mul(FloatVector.fromArray(F, factors, 48));
        FloatVector t;
        t = e0; e0 = t.add(o0); o0 = t.sub(o0); // stride 1
        t = e1; e1 = t.add(o1); o1 = t.sub(o1);
        // strides 2 .. 16
        e0 = e0.fma(HadamardVectors.SIGN_1, e0.rearrange(HadamardVectors.SWAP_1));
        o0 = o0.fma(HadamardVectors.SIGN_1, o0.rearrange(HadamardVectors.SWAP_1));
        e1 = e1.fma(HadamardVectors.SIGN_1, e1.rearrange(HadamardVectors.SWAP_1));
        o1 = o1.fma(HadamardVectors.SIGN_1, o1.rearrange(HadamardVectors.SWAP_1));
        e0 = e0.fma(HadamardVectors.SIGN_2, e0.rearrange(HadamardVectors.SWAP_2));
        o0 = o0.fma(HadamardVectors.SIGN_2, o0.rearrange(HadamardVectors.SWAP_2));
        e1 = e1.fma(HadamardVectors.SIGN_2, e1.rearrange(HadamardVectors.SWAP_2));
        o1 = o1.fma(HadamardVectors.SIGN_2, o1.rearrange(HadamardVectors.SWAP_2));
        e0 = e0.fma(HadamardVectors.SIGN_4, e0.rearrange(HadamardVectors.SWAP_4));
        o0 = o0.fma(HadamardVectors.SIGN_4, o0.rearrange(HadamardVectors.SWAP_4));
        e1 = e1.fma(HadamardVectors.SIGN_4, e1.rearrange(HadamardVectors.SWAP_4));
        o1 = o1.fma(HadamardVectors.SIGN_4, o1.rearrange(HadamardVectors.SWAP_4));
        e0 = e0.fma(HadamardVectors.SIGN_8, e0.rearrange(HadamardVectors.SWAP_8));
        o0 = o0.fma(HadamardVectors.SIGN_8, o0.rearrange(HadamardVectors.SWAP_8));
        e1 = e1.fma(HadamardVectors.SIGN_8, e1.rearrange(HadamardVectors.SWAP_8));
        o1 = o1.fma(HadamardVectors.SIGN_8, o1.rearrange(HadamardVectors.SWAP_8));
        t = e0; e0 = t.add(e1); e1 = t.sub(e1); // stride 32
        t = o0; o0 = t.add(o1); o1 = t.sub(o1);
        IntVector countLo = IntVector.fromArray(I, table, 16);
        IntVector countHi = IntVector.fromArray(I, table, 32);
        IntVector boundLo = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(d).reinterpretAsInts();
        IntVector boundHi = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(d).reinterpretAsInts();
        FloatVector scale = FloatVector.broadcast(F, perCell);
        FloatVector offset = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);
        IntVector ce0 = e0.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce0 = ce0.selectFrom(countLo, countHi).add(1, e0.compare(VectorOperators.GT, ce0.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co0 = o0.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co0 = co0.selectFrom(countLo, countHi).add(1, o0.compare(VectorOperators.GT, co0.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector ce1 = e1.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce1 = ce1.selectFrom(countLo, countHi).add(1, e1.compare(VectorOperators.GT, ce1.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        IntVector co1 = o1.fma(scale, offset).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co1 = co1.selectFrom(countLo, countHi).add(1, o1.compare(VectorOperators.GT, co1.selectFrom(boundLo, boundHi).reinterpretAsFloats()).cast(I));
        // a chunk's byte i holds codes 2i (low nibble) and 2i + 1: its even and odd codes
        ce0.or(co0.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, at + 0L, ByteOrder.LITTLE_ENDIAN);
        ce1.or(co1.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, at + 16L, ByteOrder.LITTLE_ENDIAN);
        return norm;
    }

    /**
     * Two rows of 64 at 1 bits, interleaved ({@link #encode} of each: the same codes and norms), their norms
     * into {@code norms[0..1]}; false, with nothing written, when either row is refused.
     */
    private static boolean encode1Of64Pair(MemorySegment src, long srcByteA, float[] factorsA, long srcByteB, float[] factorsB, int[] table,
            MemorySegment packed, long atA, long atB, float[] norms) {
        IntVector w0A = IntVector.fromMemorySegment(I, src, srcByteA + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w0B = IntVector.fromMemorySegment(I, src, srcByteB + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1A = IntVector.fromMemorySegment(I, src, srcByteA + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1B = IntVector.fromMemorySegment(I, src, srcByteB + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0A = w0A.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector x0B = w0B.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0A = w0A.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector y0B = w0B.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1A = w1A.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector x1B = w1B.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1A = w1A.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector y1B = w1B.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector s0A = x0A.mul(x0A).add(y0A.mul(y0A));
        FloatVector s0B = x0B.mul(x0B).add(y0B.mul(y0B));
        FloatVector s1A = x1A.mul(x1A).add(y1A.mul(y1A));
        FloatVector s1B = x1B.mul(x1B).add(y1B.mul(y1B));
        float normA = (float) Math.sqrt(s0A.add(s1A).reduceLanes(VectorOperators.ADD));
        float normB = (float) Math.sqrt(s0B.add(s1B).reduceLanes(VectorOperators.ADD));
        float dA = Math.max(normA, Float.MIN_NORMAL);
        float dB = Math.max(normB, Float.MIN_NORMAL);
        if (!Float.isFinite(dA) || !Float.isFinite(dB)) return false;
        FloatVector e0A = x0A.mul(FloatVector.fromArray(F, factorsA, 0));
        FloatVector e0B = x0B.mul(FloatVector.fromArray(F, factorsB, 0));
        FloatVector o0A = y0A.mul(FloatVector.fromArray(F, factorsA, 16));
        FloatVector o0B = y0B.mul(FloatVector.fromArray(F, factorsB, 16));
        FloatVector e1A = x1A.mul(FloatVector.fromArray(F, factorsA, 32));
        FloatVector e1B = x1B.mul(FloatVector.fromArray(F, factorsB, 32));
        FloatVector o1A = y1A.mul(FloatVector.fromArray(F, factorsA, 48));
        FloatVector o1B = y1B.mul(FloatVector.fromArray(F, factorsB, 48));
        FloatVector tA;
        FloatVector tB;
        tA = e0A; e0A = tA.add(o0A); o0A = tA.sub(o0A); // stride 1
        tA = e1A; e1A = tA.add(o1A); o1A = tA.sub(o1A);
        tB = e0B; e0B = tB.add(o0B); o0B = tB.sub(o0B); // stride 1
        tB = e1B; e1B = tB.add(o1B); o1B = tB.sub(o1B);
        e0A = e0A.fma(HadamardVectors.SIGN_1, e0A.rearrange(HadamardVectors.SWAP_1));
        e0B = e0B.fma(HadamardVectors.SIGN_1, e0B.rearrange(HadamardVectors.SWAP_1));
        o0A = o0A.fma(HadamardVectors.SIGN_1, o0A.rearrange(HadamardVectors.SWAP_1));
        o0B = o0B.fma(HadamardVectors.SIGN_1, o0B.rearrange(HadamardVectors.SWAP_1));
        e1A = e1A.fma(HadamardVectors.SIGN_1, e1A.rearrange(HadamardVectors.SWAP_1));
        e1B = e1B.fma(HadamardVectors.SIGN_1, e1B.rearrange(HadamardVectors.SWAP_1));
        o1A = o1A.fma(HadamardVectors.SIGN_1, o1A.rearrange(HadamardVectors.SWAP_1));
        o1B = o1B.fma(HadamardVectors.SIGN_1, o1B.rearrange(HadamardVectors.SWAP_1));
        e0A = e0A.fma(HadamardVectors.SIGN_2, e0A.rearrange(HadamardVectors.SWAP_2));
        e0B = e0B.fma(HadamardVectors.SIGN_2, e0B.rearrange(HadamardVectors.SWAP_2));
        o0A = o0A.fma(HadamardVectors.SIGN_2, o0A.rearrange(HadamardVectors.SWAP_2));
        o0B = o0B.fma(HadamardVectors.SIGN_2, o0B.rearrange(HadamardVectors.SWAP_2));
        e1A = e1A.fma(HadamardVectors.SIGN_2, e1A.rearrange(HadamardVectors.SWAP_2));
        e1B = e1B.fma(HadamardVectors.SIGN_2, e1B.rearrange(HadamardVectors.SWAP_2));
        o1A = o1A.fma(HadamardVectors.SIGN_2, o1A.rearrange(HadamardVectors.SWAP_2));
        o1B = o1B.fma(HadamardVectors.SIGN_2, o1B.rearrange(HadamardVectors.SWAP_2));
        e0A = e0A.fma(HadamardVectors.SIGN_4, e0A.rearrange(HadamardVectors.SWAP_4));
        e0B = e0B.fma(HadamardVectors.SIGN_4, e0B.rearrange(HadamardVectors.SWAP_4));
        o0A = o0A.fma(HadamardVectors.SIGN_4, o0A.rearrange(HadamardVectors.SWAP_4));
        o0B = o0B.fma(HadamardVectors.SIGN_4, o0B.rearrange(HadamardVectors.SWAP_4));
        e1A = e1A.fma(HadamardVectors.SIGN_4, e1A.rearrange(HadamardVectors.SWAP_4));
        e1B = e1B.fma(HadamardVectors.SIGN_4, e1B.rearrange(HadamardVectors.SWAP_4));
        o1A = o1A.fma(HadamardVectors.SIGN_4, o1A.rearrange(HadamardVectors.SWAP_4));
        o1B = o1B.fma(HadamardVectors.SIGN_4, o1B.rearrange(HadamardVectors.SWAP_4));
        e0A = e0A.fma(HadamardVectors.SIGN_8, e0A.rearrange(HadamardVectors.SWAP_8));
        e0B = e0B.fma(HadamardVectors.SIGN_8, e0B.rearrange(HadamardVectors.SWAP_8));
        o0A = o0A.fma(HadamardVectors.SIGN_8, o0A.rearrange(HadamardVectors.SWAP_8));
        o0B = o0B.fma(HadamardVectors.SIGN_8, o0B.rearrange(HadamardVectors.SWAP_8));
        e1A = e1A.fma(HadamardVectors.SIGN_8, e1A.rearrange(HadamardVectors.SWAP_8));
        e1B = e1B.fma(HadamardVectors.SIGN_8, e1B.rearrange(HadamardVectors.SWAP_8));
        o1A = o1A.fma(HadamardVectors.SIGN_8, o1A.rearrange(HadamardVectors.SWAP_8));
        o1B = o1B.fma(HadamardVectors.SIGN_8, o1B.rearrange(HadamardVectors.SWAP_8));
        tA = e0A; e0A = tA.add(e1A); e1A = tA.sub(e1A); // stride 32
        tA = o0A; o0A = tA.add(o1A); o1A = tA.sub(o1A);
        tB = e0B; e0B = tB.add(e1B); e1B = tB.sub(e1B); // stride 32
        tB = o0B; o0B = tB.add(o1B); o1B = tB.sub(o1B);
        FloatVector middleA = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * dA);
        FloatVector middleB = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * dB);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, atA + 0L, (int) (Long.expand(e0A.compare(VectorOperators.GT, middleA).toLong(), EVEN_BITS)
                | Long.expand(o0A.compare(VectorOperators.GT, middleA).toLong(), EVEN_BITS << 1)));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, atB + 0L, (int) (Long.expand(e0B.compare(VectorOperators.GT, middleB).toLong(), EVEN_BITS)
                | Long.expand(o0B.compare(VectorOperators.GT, middleB).toLong(), EVEN_BITS << 1)));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, atA + 4L, (int) (Long.expand(e1A.compare(VectorOperators.GT, middleA).toLong(), EVEN_BITS)
                | Long.expand(o1A.compare(VectorOperators.GT, middleA).toLong(), EVEN_BITS << 1)));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, atB + 4L, (int) (Long.expand(e1B.compare(VectorOperators.GT, middleB).toLong(), EVEN_BITS)
                | Long.expand(o1B.compare(VectorOperators.GT, middleB).toLong(), EVEN_BITS << 1)));
        norms[0] = normA;
        norms[1] = normB;
        return true;
    }

    /**
     * Two rows of 64 at 2 bits, interleaved ({@link #encode} of each: the same codes and norms), their norms
     * into {@code norms[0..1]}; false, with nothing written, when either row is refused.
     */
    private static boolean encode2Of64Pair(MemorySegment src, long srcByteA, float[] factorsA, long srcByteB, float[] factorsB, int[] table,
            MemorySegment packed, long atA, long atB, float[] norms) {
        IntVector w0A = IntVector.fromMemorySegment(I, src, srcByteA + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w0B = IntVector.fromMemorySegment(I, src, srcByteB + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1A = IntVector.fromMemorySegment(I, src, srcByteA + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1B = IntVector.fromMemorySegment(I, src, srcByteB + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0A = w0A.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector x0B = w0B.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0A = w0A.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector y0B = w0B.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1A = w1A.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector x1B = w1B.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1A = w1A.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector y1B = w1B.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector s0A = x0A.mul(x0A).add(y0A.mul(y0A));
        FloatVector s0B = x0B.mul(x0B).add(y0B.mul(y0B));
        FloatVector s1A = x1A.mul(x1A).add(y1A.mul(y1A));
        FloatVector s1B = x1B.mul(x1B).add(y1B.mul(y1B));
        float normA = (float) Math.sqrt(s0A.add(s1A).reduceLanes(VectorOperators.ADD));
        float normB = (float) Math.sqrt(s0B.add(s1B).reduceLanes(VectorOperators.ADD));
        float dA = Math.max(normA, Float.MIN_NORMAL);
        float dB = Math.max(normB, Float.MIN_NORMAL);
        if (!Float.isFinite(dA) || !Float.isFinite(dB)) return false;
        FloatVector e0A = x0A.mul(FloatVector.fromArray(F, factorsA, 0));
        FloatVector e0B = x0B.mul(FloatVector.fromArray(F, factorsB, 0));
        FloatVector o0A = y0A.mul(FloatVector.fromArray(F, factorsA, 16));
        FloatVector o0B = y0B.mul(FloatVector.fromArray(F, factorsB, 16));
        FloatVector e1A = x1A.mul(FloatVector.fromArray(F, factorsA, 32));
        FloatVector e1B = x1B.mul(FloatVector.fromArray(F, factorsB, 32));
        FloatVector o1A = y1A.mul(FloatVector.fromArray(F, factorsA, 48));
        FloatVector o1B = y1B.mul(FloatVector.fromArray(F, factorsB, 48));
        FloatVector tA;
        FloatVector tB;
        tA = e0A; e0A = tA.add(o0A); o0A = tA.sub(o0A); // stride 1
        tA = e1A; e1A = tA.add(o1A); o1A = tA.sub(o1A);
        tB = e0B; e0B = tB.add(o0B); o0B = tB.sub(o0B); // stride 1
        tB = e1B; e1B = tB.add(o1B); o1B = tB.sub(o1B);
        e0A = e0A.fma(HadamardVectors.SIGN_1, e0A.rearrange(HadamardVectors.SWAP_1));
        e0B = e0B.fma(HadamardVectors.SIGN_1, e0B.rearrange(HadamardVectors.SWAP_1));
        o0A = o0A.fma(HadamardVectors.SIGN_1, o0A.rearrange(HadamardVectors.SWAP_1));
        o0B = o0B.fma(HadamardVectors.SIGN_1, o0B.rearrange(HadamardVectors.SWAP_1));
        e1A = e1A.fma(HadamardVectors.SIGN_1, e1A.rearrange(HadamardVectors.SWAP_1));
        e1B = e1B.fma(HadamardVectors.SIGN_1, e1B.rearrange(HadamardVectors.SWAP_1));
        o1A = o1A.fma(HadamardVectors.SIGN_1, o1A.rearrange(HadamardVectors.SWAP_1));
        o1B = o1B.fma(HadamardVectors.SIGN_1, o1B.rearrange(HadamardVectors.SWAP_1));
        e0A = e0A.fma(HadamardVectors.SIGN_2, e0A.rearrange(HadamardVectors.SWAP_2));
        e0B = e0B.fma(HadamardVectors.SIGN_2, e0B.rearrange(HadamardVectors.SWAP_2));
        o0A = o0A.fma(HadamardVectors.SIGN_2, o0A.rearrange(HadamardVectors.SWAP_2));
        o0B = o0B.fma(HadamardVectors.SIGN_2, o0B.rearrange(HadamardVectors.SWAP_2));
        e1A = e1A.fma(HadamardVectors.SIGN_2, e1A.rearrange(HadamardVectors.SWAP_2));
        e1B = e1B.fma(HadamardVectors.SIGN_2, e1B.rearrange(HadamardVectors.SWAP_2));
        o1A = o1A.fma(HadamardVectors.SIGN_2, o1A.rearrange(HadamardVectors.SWAP_2));
        o1B = o1B.fma(HadamardVectors.SIGN_2, o1B.rearrange(HadamardVectors.SWAP_2));
        e0A = e0A.fma(HadamardVectors.SIGN_4, e0A.rearrange(HadamardVectors.SWAP_4));
        e0B = e0B.fma(HadamardVectors.SIGN_4, e0B.rearrange(HadamardVectors.SWAP_4));
        o0A = o0A.fma(HadamardVectors.SIGN_4, o0A.rearrange(HadamardVectors.SWAP_4));
        o0B = o0B.fma(HadamardVectors.SIGN_4, o0B.rearrange(HadamardVectors.SWAP_4));
        e1A = e1A.fma(HadamardVectors.SIGN_4, e1A.rearrange(HadamardVectors.SWAP_4));
        e1B = e1B.fma(HadamardVectors.SIGN_4, e1B.rearrange(HadamardVectors.SWAP_4));
        o1A = o1A.fma(HadamardVectors.SIGN_4, o1A.rearrange(HadamardVectors.SWAP_4));
        o1B = o1B.fma(HadamardVectors.SIGN_4, o1B.rearrange(HadamardVectors.SWAP_4));
        e0A = e0A.fma(HadamardVectors.SIGN_8, e0A.rearrange(HadamardVectors.SWAP_8));
        e0B = e0B.fma(HadamardVectors.SIGN_8, e0B.rearrange(HadamardVectors.SWAP_8));
        o0A = o0A.fma(HadamardVectors.SIGN_8, o0A.rearrange(HadamardVectors.SWAP_8));
        o0B = o0B.fma(HadamardVectors.SIGN_8, o0B.rearrange(HadamardVectors.SWAP_8));
        e1A = e1A.fma(HadamardVectors.SIGN_8, e1A.rearrange(HadamardVectors.SWAP_8));
        e1B = e1B.fma(HadamardVectors.SIGN_8, e1B.rearrange(HadamardVectors.SWAP_8));
        o1A = o1A.fma(HadamardVectors.SIGN_8, o1A.rearrange(HadamardVectors.SWAP_8));
        o1B = o1B.fma(HadamardVectors.SIGN_8, o1B.rearrange(HadamardVectors.SWAP_8));
        tA = e0A; e0A = tA.add(e1A); e1A = tA.sub(e1A); // stride 32
        tA = o0A; o0A = tA.add(o1A); o1A = tA.sub(o1A);
        tB = e0B; e0B = tB.add(e1B); e1B = tB.sub(e1B); // stride 32
        tB = o0B; o0B = tB.add(o1B); o1B = tB.sub(o1B);
        FloatVector middleA = FloatVector.broadcast(F, Float.intBitsToFloat(table[2]) * dA);
        FloatVector middleB = FloatVector.broadcast(F, Float.intBitsToFloat(table[2]) * dB);
        FloatVector lowA = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * dA);
        FloatVector lowB = FloatVector.broadcast(F, Float.intBitsToFloat(table[1]) * dB);
        FloatVector highA = FloatVector.broadcast(F, Float.intBitsToFloat(table[3]) * dA);
        FloatVector highB = FloatVector.broadcast(F, Float.intBitsToFloat(table[3]) * dB);
        VectorMask<Float> ue0A = e0A.compare(VectorOperators.GT, middleA);
        VectorMask<Float> ue0B = e0B.compare(VectorOperators.GT, middleB);
        VectorMask<Float> ne0A = e0A.compare(VectorOperators.GT, lowA.blend(highA, ue0A));
        VectorMask<Float> ne0B = e0B.compare(VectorOperators.GT, lowB.blend(highB, ue0B));
        VectorMask<Float> uo0A = o0A.compare(VectorOperators.GT, middleA);
        VectorMask<Float> uo0B = o0B.compare(VectorOperators.GT, middleB);
        VectorMask<Float> no0A = o0A.compare(VectorOperators.GT, lowA.blend(highA, uo0A));
        VectorMask<Float> no0B = o0B.compare(VectorOperators.GT, lowB.blend(highB, uo0B));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, atA + 0L, Long.expand(ne0A.toLong(), NIBBLE_BIT) | Long.expand(ue0A.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no0A.toLong(), NIBBLE_BIT << 2) | Long.expand(uo0A.toLong(), NIBBLE_BIT << 3));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, atB + 0L, Long.expand(ne0B.toLong(), NIBBLE_BIT) | Long.expand(ue0B.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no0B.toLong(), NIBBLE_BIT << 2) | Long.expand(uo0B.toLong(), NIBBLE_BIT << 3));
        VectorMask<Float> ue1A = e1A.compare(VectorOperators.GT, middleA);
        VectorMask<Float> ue1B = e1B.compare(VectorOperators.GT, middleB);
        VectorMask<Float> ne1A = e1A.compare(VectorOperators.GT, lowA.blend(highA, ue1A));
        VectorMask<Float> ne1B = e1B.compare(VectorOperators.GT, lowB.blend(highB, ue1B));
        VectorMask<Float> uo1A = o1A.compare(VectorOperators.GT, middleA);
        VectorMask<Float> uo1B = o1B.compare(VectorOperators.GT, middleB);
        VectorMask<Float> no1A = o1A.compare(VectorOperators.GT, lowA.blend(highA, uo1A));
        VectorMask<Float> no1B = o1B.compare(VectorOperators.GT, lowB.blend(highB, uo1B));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, atA + 8L, Long.expand(ne1A.toLong(), NIBBLE_BIT) | Long.expand(ue1A.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no1A.toLong(), NIBBLE_BIT << 2) | Long.expand(uo1A.toLong(), NIBBLE_BIT << 3));
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, atB + 8L, Long.expand(ne1B.toLong(), NIBBLE_BIT) | Long.expand(ue1B.toLong(), NIBBLE_BIT << 1)
                | Long.expand(no1B.toLong(), NIBBLE_BIT << 2) | Long.expand(uo1B.toLong(), NIBBLE_BIT << 3));
        norms[0] = normA;
        norms[1] = normB;
        return true;
    }

    /**
     * Two rows of 64 at 3 bits, interleaved ({@link #encode} of each: the same codes and norms), their norms
     * into {@code norms[0..1]}; false, with nothing written, when either row is refused.
     */
    private static boolean encode3Of64Pair(MemorySegment src, long srcByteA, float[] factorsA, long srcByteB, float[] factorsB, int[] table,
            MemorySegment packed, long atA, long atB, float[] norms) {
        IntVector w0A = IntVector.fromMemorySegment(I, src, srcByteA + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w0B = IntVector.fromMemorySegment(I, src, srcByteB + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1A = IntVector.fromMemorySegment(I, src, srcByteA + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1B = IntVector.fromMemorySegment(I, src, srcByteB + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0A = w0A.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector x0B = w0B.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0A = w0A.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector y0B = w0B.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1A = w1A.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector x1B = w1B.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1A = w1A.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector y1B = w1B.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector s0A = x0A.mul(x0A).add(y0A.mul(y0A));
        FloatVector s0B = x0B.mul(x0B).add(y0B.mul(y0B));
        FloatVector s1A = x1A.mul(x1A).add(y1A.mul(y1A));
        FloatVector s1B = x1B.mul(x1B).add(y1B.mul(y1B));
        float normA = (float) Math.sqrt(s0A.add(s1A).reduceLanes(VectorOperators.ADD));
        float normB = (float) Math.sqrt(s0B.add(s1B).reduceLanes(VectorOperators.ADD));
        float dA = Math.max(normA, Float.MIN_NORMAL);
        float dB = Math.max(normB, Float.MIN_NORMAL);
        float perCellA = Float.intBitsToFloat(table[CELL_SCALE]) / dA;
        float perCellB = Float.intBitsToFloat(table[CELL_SCALE]) / dB;
        if (!Float.isFinite(dA) || !Float.isFinite(perCellA) || !Float.isFinite(dB) || !Float.isFinite(perCellB)) return false;
        FloatVector e0A = x0A.mul(FloatVector.fromArray(F, factorsA, 0));
        FloatVector e0B = x0B.mul(FloatVector.fromArray(F, factorsB, 0));
        FloatVector o0A = y0A.mul(FloatVector.fromArray(F, factorsA, 16));
        FloatVector o0B = y0B.mul(FloatVector.fromArray(F, factorsB, 16));
        FloatVector e1A = x1A.mul(FloatVector.fromArray(F, factorsA, 32));
        FloatVector e1B = x1B.mul(FloatVector.fromArray(F, factorsB, 32));
        FloatVector o1A = y1A.mul(FloatVector.fromArray(F, factorsA, 48));
        FloatVector o1B = y1B.mul(FloatVector.fromArray(F, factorsB, 48));
        FloatVector tA;
        FloatVector tB;
        tA = e0A; e0A = tA.add(o0A); o0A = tA.sub(o0A); // stride 1
        tA = e1A; e1A = tA.add(o1A); o1A = tA.sub(o1A);
        tB = e0B; e0B = tB.add(o0B); o0B = tB.sub(o0B); // stride 1
        tB = e1B; e1B = tB.add(o1B); o1B = tB.sub(o1B);
        e0A = e0A.fma(HadamardVectors.SIGN_1, e0A.rearrange(HadamardVectors.SWAP_1));
        e0B = e0B.fma(HadamardVectors.SIGN_1, e0B.rearrange(HadamardVectors.SWAP_1));
        o0A = o0A.fma(HadamardVectors.SIGN_1, o0A.rearrange(HadamardVectors.SWAP_1));
        o0B = o0B.fma(HadamardVectors.SIGN_1, o0B.rearrange(HadamardVectors.SWAP_1));
        e1A = e1A.fma(HadamardVectors.SIGN_1, e1A.rearrange(HadamardVectors.SWAP_1));
        e1B = e1B.fma(HadamardVectors.SIGN_1, e1B.rearrange(HadamardVectors.SWAP_1));
        o1A = o1A.fma(HadamardVectors.SIGN_1, o1A.rearrange(HadamardVectors.SWAP_1));
        o1B = o1B.fma(HadamardVectors.SIGN_1, o1B.rearrange(HadamardVectors.SWAP_1));
        e0A = e0A.fma(HadamardVectors.SIGN_2, e0A.rearrange(HadamardVectors.SWAP_2));
        e0B = e0B.fma(HadamardVectors.SIGN_2, e0B.rearrange(HadamardVectors.SWAP_2));
        o0A = o0A.fma(HadamardVectors.SIGN_2, o0A.rearrange(HadamardVectors.SWAP_2));
        o0B = o0B.fma(HadamardVectors.SIGN_2, o0B.rearrange(HadamardVectors.SWAP_2));
        e1A = e1A.fma(HadamardVectors.SIGN_2, e1A.rearrange(HadamardVectors.SWAP_2));
        e1B = e1B.fma(HadamardVectors.SIGN_2, e1B.rearrange(HadamardVectors.SWAP_2));
        o1A = o1A.fma(HadamardVectors.SIGN_2, o1A.rearrange(HadamardVectors.SWAP_2));
        o1B = o1B.fma(HadamardVectors.SIGN_2, o1B.rearrange(HadamardVectors.SWAP_2));
        e0A = e0A.fma(HadamardVectors.SIGN_4, e0A.rearrange(HadamardVectors.SWAP_4));
        e0B = e0B.fma(HadamardVectors.SIGN_4, e0B.rearrange(HadamardVectors.SWAP_4));
        o0A = o0A.fma(HadamardVectors.SIGN_4, o0A.rearrange(HadamardVectors.SWAP_4));
        o0B = o0B.fma(HadamardVectors.SIGN_4, o0B.rearrange(HadamardVectors.SWAP_4));
        e1A = e1A.fma(HadamardVectors.SIGN_4, e1A.rearrange(HadamardVectors.SWAP_4));
        e1B = e1B.fma(HadamardVectors.SIGN_4, e1B.rearrange(HadamardVectors.SWAP_4));
        o1A = o1A.fma(HadamardVectors.SIGN_4, o1A.rearrange(HadamardVectors.SWAP_4));
        o1B = o1B.fma(HadamardVectors.SIGN_4, o1B.rearrange(HadamardVectors.SWAP_4));
        e0A = e0A.fma(HadamardVectors.SIGN_8, e0A.rearrange(HadamardVectors.SWAP_8));
        e0B = e0B.fma(HadamardVectors.SIGN_8, e0B.rearrange(HadamardVectors.SWAP_8));
        o0A = o0A.fma(HadamardVectors.SIGN_8, o0A.rearrange(HadamardVectors.SWAP_8));
        o0B = o0B.fma(HadamardVectors.SIGN_8, o0B.rearrange(HadamardVectors.SWAP_8));
        e1A = e1A.fma(HadamardVectors.SIGN_8, e1A.rearrange(HadamardVectors.SWAP_8));
        e1B = e1B.fma(HadamardVectors.SIGN_8, e1B.rearrange(HadamardVectors.SWAP_8));
        o1A = o1A.fma(HadamardVectors.SIGN_8, o1A.rearrange(HadamardVectors.SWAP_8));
        o1B = o1B.fma(HadamardVectors.SIGN_8, o1B.rearrange(HadamardVectors.SWAP_8));
        tA = e0A; e0A = tA.add(e1A); e1A = tA.sub(e1A); // stride 32
        tA = o0A; o0A = tA.add(o1A); o1A = tA.sub(o1A);
        tB = e0B; e0B = tB.add(e1B); e1B = tB.sub(e1B); // stride 32
        tB = o0B; o0B = tB.add(o1B); o1B = tB.sub(o1B);
        IntVector countLoA = IntVector.fromArray(I, table, 16);
        IntVector countLoB = IntVector.fromArray(I, table, 16);
        IntVector countHiA = IntVector.fromArray(I, table, 32);
        IntVector countHiB = IntVector.fromArray(I, table, 32);
        IntVector boundLoA = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(dA).reinterpretAsInts();
        IntVector boundLoB = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(dB).reinterpretAsInts();
        IntVector boundHiA = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(dA).reinterpretAsInts();
        IntVector boundHiB = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(dB).reinterpretAsInts();
        FloatVector scaleA = FloatVector.broadcast(F, perCellA);
        FloatVector scaleB = FloatVector.broadcast(F, perCellB);
        FloatVector offsetA = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);
        FloatVector offsetB = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);
        IntVector ce0A = e0A.fma(scaleA, offsetA).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        IntVector ce0B = e0B.fma(scaleB, offsetB).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce0A = ce0A.selectFrom(countLoA, countHiA).add(1, e0A.compare(VectorOperators.GT, ce0A.selectFrom(boundLoA, boundHiA).reinterpretAsFloats()).cast(I));
        ce0B = ce0B.selectFrom(countLoB, countHiB).add(1, e0B.compare(VectorOperators.GT, ce0B.selectFrom(boundLoB, boundHiB).reinterpretAsFloats()).cast(I));
        IntVector co0A = o0A.fma(scaleA, offsetA).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        IntVector co0B = o0B.fma(scaleB, offsetB).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co0A = co0A.selectFrom(countLoA, countHiA).add(1, o0A.compare(VectorOperators.GT, co0A.selectFrom(boundLoA, boundHiA).reinterpretAsFloats()).cast(I));
        co0B = co0B.selectFrom(countLoB, countHiB).add(1, o0B.compare(VectorOperators.GT, co0B.selectFrom(boundLoB, boundHiB).reinterpretAsFloats()).cast(I));
        IntVector ce1A = e1A.fma(scaleA, offsetA).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        IntVector ce1B = e1B.fma(scaleB, offsetB).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce1A = ce1A.selectFrom(countLoA, countHiA).add(1, e1A.compare(VectorOperators.GT, ce1A.selectFrom(boundLoA, boundHiA).reinterpretAsFloats()).cast(I));
        ce1B = ce1B.selectFrom(countLoB, countHiB).add(1, e1B.compare(VectorOperators.GT, ce1B.selectFrom(boundLoB, boundHiB).reinterpretAsFloats()).cast(I));
        IntVector co1A = o1A.fma(scaleA, offsetA).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        IntVector co1B = o1B.fma(scaleB, offsetB).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co1A = co1A.selectFrom(countLoA, countHiA).add(1, o1A.compare(VectorOperators.GT, co1A.selectFrom(boundLoA, boundHiA).reinterpretAsFloats()).cast(I));
        co1B = co1B.selectFrom(countLoB, countHiB).add(1, o1B.compare(VectorOperators.GT, co1B.selectFrom(boundLoB, boundHiB).reinterpretAsFloats()).cast(I));
        LongVector p0A = co0A.lanewise(VectorOperators.LSHL, 3).or(ce0A).reinterpretAsLongs();
        LongVector p0B = co0B.lanewise(VectorOperators.LSHL, 3).or(ce0B).reinterpretAsLongs();
        LongVector q0A = p0A.or(p0A.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        LongVector q0B = p0B.or(p0B.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        long lo0A = Long.compress(q0A.lane(0), TWELVE_OF_SIXTEEN), hi0A = Long.compress(q0A.lane(1), TWELVE_OF_SIXTEEN);
        long lo0B = Long.compress(q0B.lane(0), TWELVE_OF_SIXTEEN), hi0B = Long.compress(q0B.lane(1), TWELVE_OF_SIXTEEN);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, atA + 0L, lo0A | hi0A << 48);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, atB + 0L, lo0B | hi0B << 48);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, atA + 8L, (int) (hi0A >>> 16));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, atB + 8L, (int) (hi0B >>> 16));
        LongVector p1A = co1A.lanewise(VectorOperators.LSHL, 3).or(ce1A).reinterpretAsLongs();
        LongVector p1B = co1B.lanewise(VectorOperators.LSHL, 3).or(ce1B).reinterpretAsLongs();
        LongVector q1A = p1A.or(p1A.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        LongVector q1B = p1B.or(p1B.lanewise(VectorOperators.LSHR, 26)).convertShape(VectorOperators.L2S, SHORTS128, 0).reinterpretAsLongs();
        long lo1A = Long.compress(q1A.lane(0), TWELVE_OF_SIXTEEN), hi1A = Long.compress(q1A.lane(1), TWELVE_OF_SIXTEEN);
        long lo1B = Long.compress(q1B.lane(0), TWELVE_OF_SIXTEEN), hi1B = Long.compress(q1B.lane(1), TWELVE_OF_SIXTEEN);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, atA + 12L, lo1A | hi1A << 48);
        packed.set(ValueLayout.JAVA_LONG_UNALIGNED, atB + 12L, lo1B | hi1B << 48);
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, atA + 20L, (int) (hi1A >>> 16));
        packed.set(ValueLayout.JAVA_INT_UNALIGNED, atB + 20L, (int) (hi1B >>> 16));
        norms[0] = normA;
        norms[1] = normB;
        return true;
    }

    /**
     * Two rows of 64 at 4 bits, interleaved ({@link #encode} of each: the same codes and norms), their norms
     * into {@code norms[0..1]}; false, with nothing written, when either row is refused.
     */
    private static boolean encode4Of64Pair(MemorySegment src, long srcByteA, float[] factorsA, long srcByteB, float[] factorsB, int[] table,
            MemorySegment packed, long atA, long atB, float[] norms) {
        IntVector w0A = IntVector.fromMemorySegment(I, src, srcByteA + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w0B = IntVector.fromMemorySegment(I, src, srcByteB + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1A = IntVector.fromMemorySegment(I, src, srcByteA + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector w1B = IntVector.fromMemorySegment(I, src, srcByteB + 64L, ByteOrder.LITTLE_ENDIAN);
        FloatVector x0A = w0A.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector x0B = w0B.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y0A = w0A.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector y0B = w0B.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector x1A = w1A.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector x1B = w1B.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        FloatVector y1A = w1A.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector y1B = w1B.and(0xFFFF0000).reinterpretAsFloats();
        FloatVector s0A = x0A.mul(x0A).add(y0A.mul(y0A));
        FloatVector s0B = x0B.mul(x0B).add(y0B.mul(y0B));
        FloatVector s1A = x1A.mul(x1A).add(y1A.mul(y1A));
        FloatVector s1B = x1B.mul(x1B).add(y1B.mul(y1B));
        float normA = (float) Math.sqrt(s0A.add(s1A).reduceLanes(VectorOperators.ADD));
        float normB = (float) Math.sqrt(s0B.add(s1B).reduceLanes(VectorOperators.ADD));
        float dA = Math.max(normA, Float.MIN_NORMAL);
        float dB = Math.max(normB, Float.MIN_NORMAL);
        float perCellA = Float.intBitsToFloat(table[CELL_SCALE]) / dA;
        float perCellB = Float.intBitsToFloat(table[CELL_SCALE]) / dB;
        if (!Float.isFinite(dA) || !Float.isFinite(perCellA) || !Float.isFinite(dB) || !Float.isFinite(perCellB)) return false;
        FloatVector e0A = x0A.mul(FloatVector.fromArray(F, factorsA, 0));
        FloatVector e0B = x0B.mul(FloatVector.fromArray(F, factorsB, 0));
        FloatVector o0A = y0A.mul(FloatVector.fromArray(F, factorsA, 16));
        FloatVector o0B = y0B.mul(FloatVector.fromArray(F, factorsB, 16));
        FloatVector e1A = x1A.mul(FloatVector.fromArray(F, factorsA, 32));
        FloatVector e1B = x1B.mul(FloatVector.fromArray(F, factorsB, 32));
        FloatVector o1A = y1A.mul(FloatVector.fromArray(F, factorsA, 48));
        FloatVector o1B = y1B.mul(FloatVector.fromArray(F, factorsB, 48));
        FloatVector tA;
        FloatVector tB;
        tA = e0A; e0A = tA.add(o0A); o0A = tA.sub(o0A); // stride 1
        tA = e1A; e1A = tA.add(o1A); o1A = tA.sub(o1A);
        tB = e0B; e0B = tB.add(o0B); o0B = tB.sub(o0B); // stride 1
        tB = e1B; e1B = tB.add(o1B); o1B = tB.sub(o1B);
        e0A = e0A.fma(HadamardVectors.SIGN_1, e0A.rearrange(HadamardVectors.SWAP_1));
        e0B = e0B.fma(HadamardVectors.SIGN_1, e0B.rearrange(HadamardVectors.SWAP_1));
        o0A = o0A.fma(HadamardVectors.SIGN_1, o0A.rearrange(HadamardVectors.SWAP_1));
        o0B = o0B.fma(HadamardVectors.SIGN_1, o0B.rearrange(HadamardVectors.SWAP_1));
        e1A = e1A.fma(HadamardVectors.SIGN_1, e1A.rearrange(HadamardVectors.SWAP_1));
        e1B = e1B.fma(HadamardVectors.SIGN_1, e1B.rearrange(HadamardVectors.SWAP_1));
        o1A = o1A.fma(HadamardVectors.SIGN_1, o1A.rearrange(HadamardVectors.SWAP_1));
        o1B = o1B.fma(HadamardVectors.SIGN_1, o1B.rearrange(HadamardVectors.SWAP_1));
        e0A = e0A.fma(HadamardVectors.SIGN_2, e0A.rearrange(HadamardVectors.SWAP_2));
        e0B = e0B.fma(HadamardVectors.SIGN_2, e0B.rearrange(HadamardVectors.SWAP_2));
        o0A = o0A.fma(HadamardVectors.SIGN_2, o0A.rearrange(HadamardVectors.SWAP_2));
        o0B = o0B.fma(HadamardVectors.SIGN_2, o0B.rearrange(HadamardVectors.SWAP_2));
        e1A = e1A.fma(HadamardVectors.SIGN_2, e1A.rearrange(HadamardVectors.SWAP_2));
        e1B = e1B.fma(HadamardVectors.SIGN_2, e1B.rearrange(HadamardVectors.SWAP_2));
        o1A = o1A.fma(HadamardVectors.SIGN_2, o1A.rearrange(HadamardVectors.SWAP_2));
        o1B = o1B.fma(HadamardVectors.SIGN_2, o1B.rearrange(HadamardVectors.SWAP_2));
        e0A = e0A.fma(HadamardVectors.SIGN_4, e0A.rearrange(HadamardVectors.SWAP_4));
        e0B = e0B.fma(HadamardVectors.SIGN_4, e0B.rearrange(HadamardVectors.SWAP_4));
        o0A = o0A.fma(HadamardVectors.SIGN_4, o0A.rearrange(HadamardVectors.SWAP_4));
        o0B = o0B.fma(HadamardVectors.SIGN_4, o0B.rearrange(HadamardVectors.SWAP_4));
        e1A = e1A.fma(HadamardVectors.SIGN_4, e1A.rearrange(HadamardVectors.SWAP_4));
        e1B = e1B.fma(HadamardVectors.SIGN_4, e1B.rearrange(HadamardVectors.SWAP_4));
        o1A = o1A.fma(HadamardVectors.SIGN_4, o1A.rearrange(HadamardVectors.SWAP_4));
        o1B = o1B.fma(HadamardVectors.SIGN_4, o1B.rearrange(HadamardVectors.SWAP_4));
        e0A = e0A.fma(HadamardVectors.SIGN_8, e0A.rearrange(HadamardVectors.SWAP_8));
        e0B = e0B.fma(HadamardVectors.SIGN_8, e0B.rearrange(HadamardVectors.SWAP_8));
        o0A = o0A.fma(HadamardVectors.SIGN_8, o0A.rearrange(HadamardVectors.SWAP_8));
        o0B = o0B.fma(HadamardVectors.SIGN_8, o0B.rearrange(HadamardVectors.SWAP_8));
        e1A = e1A.fma(HadamardVectors.SIGN_8, e1A.rearrange(HadamardVectors.SWAP_8));
        e1B = e1B.fma(HadamardVectors.SIGN_8, e1B.rearrange(HadamardVectors.SWAP_8));
        o1A = o1A.fma(HadamardVectors.SIGN_8, o1A.rearrange(HadamardVectors.SWAP_8));
        o1B = o1B.fma(HadamardVectors.SIGN_8, o1B.rearrange(HadamardVectors.SWAP_8));
        tA = e0A; e0A = tA.add(e1A); e1A = tA.sub(e1A); // stride 32
        tA = o0A; o0A = tA.add(o1A); o1A = tA.sub(o1A);
        tB = e0B; e0B = tB.add(e1B); e1B = tB.sub(e1B); // stride 32
        tB = o0B; o0B = tB.add(o1B); o1B = tB.sub(o1B);
        IntVector countLoA = IntVector.fromArray(I, table, 16);
        IntVector countLoB = IntVector.fromArray(I, table, 16);
        IntVector countHiA = IntVector.fromArray(I, table, 32);
        IntVector countHiB = IntVector.fromArray(I, table, 32);
        IntVector boundLoA = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(dA).reinterpretAsInts();
        IntVector boundLoB = IntVector.fromArray(I, table, 48).reinterpretAsFloats().mul(dB).reinterpretAsInts();
        IntVector boundHiA = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(dA).reinterpretAsInts();
        IntVector boundHiB = IntVector.fromArray(I, table, 64).reinterpretAsFloats().mul(dB).reinterpretAsInts();
        FloatVector scaleA = FloatVector.broadcast(F, perCellA);
        FloatVector scaleB = FloatVector.broadcast(F, perCellB);
        FloatVector offsetA = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);
        FloatVector offsetB = FloatVector.broadcast(F, RINT + table[CELL_SCALE + 1]);
        IntVector ce0A = e0A.fma(scaleA, offsetA).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        IntVector ce0B = e0B.fma(scaleB, offsetB).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce0A = ce0A.selectFrom(countLoA, countHiA).add(1, e0A.compare(VectorOperators.GT, ce0A.selectFrom(boundLoA, boundHiA).reinterpretAsFloats()).cast(I));
        ce0B = ce0B.selectFrom(countLoB, countHiB).add(1, e0B.compare(VectorOperators.GT, ce0B.selectFrom(boundLoB, boundHiB).reinterpretAsFloats()).cast(I));
        IntVector co0A = o0A.fma(scaleA, offsetA).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        IntVector co0B = o0B.fma(scaleB, offsetB).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co0A = co0A.selectFrom(countLoA, countHiA).add(1, o0A.compare(VectorOperators.GT, co0A.selectFrom(boundLoA, boundHiA).reinterpretAsFloats()).cast(I));
        co0B = co0B.selectFrom(countLoB, countHiB).add(1, o0B.compare(VectorOperators.GT, co0B.selectFrom(boundLoB, boundHiB).reinterpretAsFloats()).cast(I));
        IntVector ce1A = e1A.fma(scaleA, offsetA).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        IntVector ce1B = e1B.fma(scaleB, offsetB).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        ce1A = ce1A.selectFrom(countLoA, countHiA).add(1, e1A.compare(VectorOperators.GT, ce1A.selectFrom(boundLoA, boundHiA).reinterpretAsFloats()).cast(I));
        ce1B = ce1B.selectFrom(countLoB, countHiB).add(1, e1B.compare(VectorOperators.GT, ce1B.selectFrom(boundLoB, boundHiB).reinterpretAsFloats()).cast(I));
        IntVector co1A = o1A.fma(scaleA, offsetA).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        IntVector co1B = o1B.fma(scaleB, offsetB).reinterpretAsInts().max(BIASED_ZERO).min(BIASED_ZERO + 31);
        co1A = co1A.selectFrom(countLoA, countHiA).add(1, o1A.compare(VectorOperators.GT, co1A.selectFrom(boundLoA, boundHiA).reinterpretAsFloats()).cast(I));
        co1B = co1B.selectFrom(countLoB, countHiB).add(1, o1B.compare(VectorOperators.GT, co1B.selectFrom(boundLoB, boundHiB).reinterpretAsFloats()).cast(I));
        ce0A.or(co0A.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, atA + 0L, ByteOrder.LITTLE_ENDIAN);
        ce0B.or(co0B.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, atB + 0L, ByteOrder.LITTLE_ENDIAN);
        ce1A.or(co1A.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, atA + 16L, ByteOrder.LITTLE_ENDIAN);
        ce1B.or(co1B.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, BYTES16, 0).intoMemorySegment(packed, atB + 16L, ByteOrder.LITTLE_ENDIAN);
        norms[0] = normA;
        norms[1] = normB;
        return true;
    }
}
