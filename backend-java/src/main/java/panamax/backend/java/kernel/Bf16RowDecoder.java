package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import panamax.backend.java.kernel.CodebookVectors.Table;

/**
 * TurboQuant's decoder of codebook rows of 64 or 128 codes (1 to 4 bits) to bf16, one row per call and
 * in registers throughout: codes cut from the row's bytes as the even and odd codes of each 32-code
 * chunk, looked up, un-rotated (the inverse of {@link HadamardVectors#rotateBf16}'s layout), rounded and
 * stored as int lanes of bf16 pairs. The counterpart of {@link Bf16RowEncoder}; the same bits as looking
 * up, rotating and storing a float row. Stateless; tables immutable.
 */
public final class Bf16RowDecoder {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED;
    private static final int L = F.length();
    /** 1/√n of the rows it decodes, as {@code (float) (1 / Math.sqrt(n))}: the same rounding as the float path's normalization. */
    private static final float INV_SQRT_128 = (float) (1 / Math.sqrt(128));
    private static final float INV_SQRT_64 = (float) (1 / Math.sqrt(64));

    private Bf16RowDecoder() {
    }

    /**
     * Per width 1 to 4, chunk of 32 codes (rows of at most 128) and parity p, at [((bits − 1)·4 + chunk)·2 + p]
     * (times 64 bytes, or 16 shifts): lane i's 16-bit byte window and shift for code 32·chunk + 2i + p, the
     * even (p = 0) and odd (p = 1) codes of {@link #decode}'s chunks.
     */
    private static final byte[] EVEN_ODD_WINDOW = new byte[32 * 64];
    private static final int[] EVEN_ODD_SHIFT = new int[32 * 16];

    static {
        if (CodebookVectors.WINDOWS) {
            for (int bits = 1; bits <= 4; bits++) {
                for (int ch = 0; ch < 4; ch++) {
                    for (int p = 0; p < 2; p++) {
                        int k = ((bits - 1) * 4 + ch) * 2 + p;
                        for (int i = 0; i < L; i++) {
                            int bit = bits * (32 * ch + 2 * i + p);
                            for (int j = 0; j < 4; j++) EVEN_ODD_WINDOW[k * 64 + 4 * i + j] = (byte) Math.min(63, (bit >>> 3) + Math.min(j, 1));
                            EVEN_ODD_SHIFT[k * 16 + i] = bit & 7;
                        }
                    }
                }
            }
        }
    }

    /**
     * True when {@link #decode} decodes rows of {@code n} such codes: 1 to 4 bits, a register
     * table, rows of 64 or 128 (the caller checks that 64 bytes from each row lie in the segment).
     */
    public static boolean decodes(Table t, int bits, int n) {
        return bits >= 1 && bits <= 4 && CodebookVectors.WINDOWS && t.bits() != null && HadamardVectors.rotatesBf16(n);
    }

    /**
     * True when every value of a row decoded with {@code scale} stays finite through the rotation: n
     * terms of at most maxAbs·|scale| each stay below the largest float (with room for rounding), so
     * {@link #decode} needs no NaN repair and may flip signs as bits. Other rows take the
     * look-up, transform and store.
     */
    public static boolean decodesFinite(Table t, int n, float scale) {
        return (double) t.maxAbs() * Math.abs(scale) * n < 1e38;
    }

    /**
     * {@code signs} (±1, n of them) as {@link #decode} applies them: per chunk of 32 values,
     * int lane i holds the sign bits of values 2i (bit 15) and 2i + 1 (bit 31), XOR-ed into the stored
     * bf16 pairs.
     */
    public static void signWords(float[] signs, int n, int[] dst) {
        for (int c = 0, w = 0; c < n; c += 32) {
            for (int i = 0; i < 16; i++, w++) {
                dst[w] = (signs[c + 2 * i] < 0 ? 0x8000 : 0) | (signs[c + 2 * i + 1] < 0 ? 0x80000000 : 0);
            }
        }
    }

    /**
     * One row of {@code codebookDequantizeRotated} to bf16 in one pass, with no float row between the
     * steps: the codes at byte {@code rowByte} cut from the row's byte vector as even and odd codes
     * of each 32-code chunk ({@link CodebookVectors#lookupWindows}' windows), looked up in the book times {@code scale}
     * times 1/√n (the same two roundings as looking up and normalizing), un-rotated in registers (the
     * stride-1 butterfly between the even and odd vectors, strides 2 to 16 inside them, wider ones
     * between chunks: {@link HadamardVectors#transform}'s stages in its order), rounded to bf16, and
     * each chunk's even and odd halves stored as one int vector of bf16 pairs with the signs
     * ({@link #signWords}) XOR-ed in. For rows that {@link #decodesFinite}, the same bits as
     * {@link CodebookVectors#lookupPacked4} or {@link CodebookVectors#lookupWindows}, {@link HadamardVectors#transform} and
     * {@link CodebookVectors#storeBf16}. Written out (generated by {@code tools/gen-bf16-row-kernels.py}, with the encoder's
     * stages): a helper method taking or returning vectors was left uninlined
     * (boxed) in a method this size, and vectors merged from two loads unintrinsified. Reads 64 bytes
     * from {@code rowByte}.
     */
    public static void decode(Table t, MemorySegment packed, long rowByte, int bits, int n, float scale, int[] signWords,
            MemorySegment dst, long dstByte) {
        if (n == 4 * L) decodeOf64(t, packed, rowByte, bits, scale, signWords, dst, dstByte);
        else decodeOf128(t, packed, rowByte, bits, scale, signWords, dst, dstByte);
    }

    // ---- generated by tools/gen-bf16-row-kernels.py: begin ----

    /** {@link #decode} of a row of 128 codes. */
    private static void decodeOf128(Table t, MemorySegment packed, long rowByte, int bits, float scale, int[] signWords,
            MemorySegment dst, long dstByte) {
        // the book times the scale, then 1/√n, as lookupPacked4 (the same products), loaded from the array: the register
        // field came in unintrinsified
        IntVector table = IntVector.fromArray(I, t.laneBits(), 0).reinterpretAsFloats().mul(scale).mul(INV_SQRT_128).reinterpretAsInts();
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        IntVector half = IntVector.broadcast(I, 0x7FFF);
        ByteVector row = ByteVector.fromMemorySegment(BYTES, packed, rowByte, ByteOrder.LITTLE_ENDIAN);
        int k = (bits - 1) * 8;
        FloatVector e0 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 0) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 0) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector o0 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 1) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 1) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector e1 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 2) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 2) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector o1 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 3) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 3) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector e2 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 4) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 4) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector o2 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 5) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 5) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector e3 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 6) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 6) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector o3 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 7) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 7) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector t0;
        t0 = e0; e0 = t0.add(o0); o0 = t0.sub(o0); // stride 1
        t0 = e1; e1 = t0.add(o1); o1 = t0.sub(o1);
        t0 = e2; e2 = t0.add(o2); o2 = t0.sub(o2);
        t0 = e3; e3 = t0.add(o3); o3 = t0.sub(o3);
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
        t0 = e0; e0 = t0.add(e1); e1 = t0.sub(e1); // stride 32
        t0 = o0; o0 = t0.add(o1); o1 = t0.sub(o1);
        t0 = e2; e2 = t0.add(e3); e3 = t0.sub(e3);
        t0 = o2; o2 = t0.add(o3); o3 = t0.sub(o3);
        t0 = e0; e0 = t0.add(e2); e2 = t0.sub(e2); // stride 64
        t0 = o0; o0 = t0.add(o2); o2 = t0.sub(o2);
        t0 = e1; e1 = t0.add(e3); e3 = t0.sub(e3);
        t0 = o1; o1 = t0.add(o3); o3 = t0.sub(o3);
        // each value rounded to bf16 (nearest, ties to even) in its upper word; a chunk's even and odd halves are
        // one int vector of bf16 pairs, stored with the signs XOR-ed in
        IntVector e0i = e0.reinterpretAsInts();
        IntVector o0i = o0.reinterpretAsInts();
        e0i = e0i.add(half).add(e0i.lanewise(VectorOperators.LSHR, 16).and(1));
        o0i = o0i.add(half).add(o0i.lanewise(VectorOperators.LSHR, 16).and(1));
        e0i.lanewise(VectorOperators.LSHR, 16).or(o0i.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWords, 0))
                .intoMemorySegment(dst, dstByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector e1i = e1.reinterpretAsInts();
        IntVector o1i = o1.reinterpretAsInts();
        e1i = e1i.add(half).add(e1i.lanewise(VectorOperators.LSHR, 16).and(1));
        o1i = o1i.add(half).add(o1i.lanewise(VectorOperators.LSHR, 16).and(1));
        e1i.lanewise(VectorOperators.LSHR, 16).or(o1i.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWords, 16))
                .intoMemorySegment(dst, dstByte + 64L, ByteOrder.LITTLE_ENDIAN);
        IntVector e2i = e2.reinterpretAsInts();
        IntVector o2i = o2.reinterpretAsInts();
        e2i = e2i.add(half).add(e2i.lanewise(VectorOperators.LSHR, 16).and(1));
        o2i = o2i.add(half).add(o2i.lanewise(VectorOperators.LSHR, 16).and(1));
        e2i.lanewise(VectorOperators.LSHR, 16).or(o2i.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWords, 32))
                .intoMemorySegment(dst, dstByte + 128L, ByteOrder.LITTLE_ENDIAN);
        IntVector e3i = e3.reinterpretAsInts();
        IntVector o3i = o3.reinterpretAsInts();
        e3i = e3i.add(half).add(e3i.lanewise(VectorOperators.LSHR, 16).and(1));
        o3i = o3i.add(half).add(o3i.lanewise(VectorOperators.LSHR, 16).and(1));
        e3i.lanewise(VectorOperators.LSHR, 16).or(o3i.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWords, 48))
                .intoMemorySegment(dst, dstByte + 192L, ByteOrder.LITTLE_ENDIAN);
    }

    /** {@link #decode} of a row of 64 codes. */
    private static void decodeOf64(Table t, MemorySegment packed, long rowByte, int bits, float scale, int[] signWords,
            MemorySegment dst, long dstByte) {
        // the book times the scale, then 1/√n, as lookupPacked4 (the same products), loaded from the array: the register
        // field came in unintrinsified
        IntVector table = IntVector.fromArray(I, t.laneBits(), 0).reinterpretAsFloats().mul(scale).mul(INV_SQRT_64).reinterpretAsInts();
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        IntVector half = IntVector.broadcast(I, 0x7FFF);
        ByteVector row = ByteVector.fromMemorySegment(BYTES, packed, rowByte, ByteOrder.LITTLE_ENDIAN);
        int k = (bits - 1) * 8;
        FloatVector e0 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 0) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 0) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector o0 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 1) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 1) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector e1 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 2) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 2) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector o1 = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 3) * 64).selectFrom(row).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 3) * 16)).and(mask)
                .selectFrom(table).reinterpretAsFloats();
        FloatVector t0;
        t0 = e0; e0 = t0.add(o0); o0 = t0.sub(o0); // stride 1
        t0 = e1; e1 = t0.add(o1); o1 = t0.sub(o1);
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
        t0 = e0; e0 = t0.add(e1); e1 = t0.sub(e1); // stride 32
        t0 = o0; o0 = t0.add(o1); o1 = t0.sub(o1);
        // each value rounded to bf16 (nearest, ties to even) in its upper word; a chunk's even and odd halves are
        // one int vector of bf16 pairs, stored with the signs XOR-ed in
        IntVector e0i = e0.reinterpretAsInts();
        IntVector o0i = o0.reinterpretAsInts();
        e0i = e0i.add(half).add(e0i.lanewise(VectorOperators.LSHR, 16).and(1));
        o0i = o0i.add(half).add(o0i.lanewise(VectorOperators.LSHR, 16).and(1));
        e0i.lanewise(VectorOperators.LSHR, 16).or(o0i.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWords, 0))
                .intoMemorySegment(dst, dstByte + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector e1i = e1.reinterpretAsInts();
        IntVector o1i = o1.reinterpretAsInts();
        e1i = e1i.add(half).add(e1i.lanewise(VectorOperators.LSHR, 16).and(1));
        o1i = o1i.add(half).add(o1i.lanewise(VectorOperators.LSHR, 16).and(1));
        e1i.lanewise(VectorOperators.LSHR, 16).or(o1i.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWords, 16))
                .intoMemorySegment(dst, dstByte + 64L, ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Two rows of 64 codes by {@link #decode}, interleaved (each row's chain leaves the core waiting when alone): the
     * same bits as two calls. Both rows must be ones {@link #decode} takes ({@link #decodesFinite}, 64 bytes readable).
     */
    public static void decodeOf64Pair(Table t, MemorySegment packed, int bits, long rowByteA, float scaleA, int[] signWordsA, long dstByteA,
            long rowByteB, float scaleB, int[] signWordsB, long dstByteB, MemorySegment dst) {
        IntVector tableA = IntVector.fromArray(I, t.laneBits(), 0).reinterpretAsFloats().mul(scaleA).mul(INV_SQRT_64).reinterpretAsInts();
        IntVector tableB = IntVector.fromArray(I, t.laneBits(), 0).reinterpretAsFloats().mul(scaleB).mul(INV_SQRT_64).reinterpretAsInts();
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        IntVector half = IntVector.broadcast(I, 0x7FFF);
        ByteVector rowA = ByteVector.fromMemorySegment(BYTES, packed, rowByteA, ByteOrder.LITTLE_ENDIAN);
        ByteVector rowB = ByteVector.fromMemorySegment(BYTES, packed, rowByteB, ByteOrder.LITTLE_ENDIAN);
        int k = (bits - 1) * 8;
        FloatVector e0A = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 0) * 64).selectFrom(rowA).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 0) * 16)).and(mask)
                .selectFrom(tableA).reinterpretAsFloats();
        FloatVector e0B = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 0) * 64).selectFrom(rowB).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 0) * 16)).and(mask)
                .selectFrom(tableB).reinterpretAsFloats();
        FloatVector o0A = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 1) * 64).selectFrom(rowA).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 1) * 16)).and(mask)
                .selectFrom(tableA).reinterpretAsFloats();
        FloatVector o0B = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 1) * 64).selectFrom(rowB).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 1) * 16)).and(mask)
                .selectFrom(tableB).reinterpretAsFloats();
        FloatVector e1A = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 2) * 64).selectFrom(rowA).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 2) * 16)).and(mask)
                .selectFrom(tableA).reinterpretAsFloats();
        FloatVector e1B = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 2) * 64).selectFrom(rowB).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 2) * 16)).and(mask)
                .selectFrom(tableB).reinterpretAsFloats();
        FloatVector o1A = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 3) * 64).selectFrom(rowA).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 3) * 16)).and(mask)
                .selectFrom(tableA).reinterpretAsFloats();
        FloatVector o1B = ByteVector.fromArray(BYTES, EVEN_ODD_WINDOW, (k + 3) * 64).selectFrom(rowB).reinterpretAsInts()
                .lanewise(VectorOperators.LSHR, IntVector.fromArray(I, EVEN_ODD_SHIFT, (k + 3) * 16)).and(mask)
                .selectFrom(tableB).reinterpretAsFloats();
        FloatVector t0A;
        FloatVector t0B;
        t0A = e0A; e0A = t0A.add(o0A); o0A = t0A.sub(o0A); // stride 1
        t0B = e0B; e0B = t0B.add(o0B); o0B = t0B.sub(o0B); // stride 1
        t0A = e1A; e1A = t0A.add(o1A); o1A = t0A.sub(o1A);
        t0B = e1B; e1B = t0B.add(o1B); o1B = t0B.sub(o1B);
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
        t0A = e0A; e0A = t0A.add(e1A); e1A = t0A.sub(e1A); // stride 32
        t0B = e0B; e0B = t0B.add(e1B); e1B = t0B.sub(e1B); // stride 32
        t0A = o0A; o0A = t0A.add(o1A); o1A = t0A.sub(o1A);
        t0B = o0B; o0B = t0B.add(o1B); o1B = t0B.sub(o1B);
        IntVector e0iA = e0A.reinterpretAsInts();
        IntVector e0iB = e0B.reinterpretAsInts();
        IntVector o0iA = o0A.reinterpretAsInts();
        IntVector o0iB = o0B.reinterpretAsInts();
        e0iA = e0iA.add(half).add(e0iA.lanewise(VectorOperators.LSHR, 16).and(1));
        e0iB = e0iB.add(half).add(e0iB.lanewise(VectorOperators.LSHR, 16).and(1));
        o0iA = o0iA.add(half).add(o0iA.lanewise(VectorOperators.LSHR, 16).and(1));
        o0iB = o0iB.add(half).add(o0iB.lanewise(VectorOperators.LSHR, 16).and(1));
        e0iA.lanewise(VectorOperators.LSHR, 16).or(o0iA.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWordsA, 0))
                .intoMemorySegment(dst, dstByteA + 0L, ByteOrder.LITTLE_ENDIAN);
        e0iB.lanewise(VectorOperators.LSHR, 16).or(o0iB.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWordsB, 0))
                .intoMemorySegment(dst, dstByteB + 0L, ByteOrder.LITTLE_ENDIAN);
        IntVector e1iA = e1A.reinterpretAsInts();
        IntVector e1iB = e1B.reinterpretAsInts();
        IntVector o1iA = o1A.reinterpretAsInts();
        IntVector o1iB = o1B.reinterpretAsInts();
        e1iA = e1iA.add(half).add(e1iA.lanewise(VectorOperators.LSHR, 16).and(1));
        e1iB = e1iB.add(half).add(e1iB.lanewise(VectorOperators.LSHR, 16).and(1));
        o1iA = o1iA.add(half).add(o1iA.lanewise(VectorOperators.LSHR, 16).and(1));
        o1iB = o1iB.add(half).add(o1iB.lanewise(VectorOperators.LSHR, 16).and(1));
        e1iA.lanewise(VectorOperators.LSHR, 16).or(o1iA.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWordsA, 16))
                .intoMemorySegment(dst, dstByteA + 64L, ByteOrder.LITTLE_ENDIAN);
        e1iB.lanewise(VectorOperators.LSHR, 16).or(o1iB.and(0xFFFF0000)).lanewise(VectorOperators.XOR, IntVector.fromArray(I, signWordsB, 16))
                .intoMemorySegment(dst, dstByteB + 64L, ByteOrder.LITTLE_ENDIAN);
    }

    // ---- generated by tools/gen-bf16-row-kernels.py: end ----
}
