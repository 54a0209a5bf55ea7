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
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link AffineVectors#dequantizeBlocksBf16}: MLX affine codes to bf16 with MLX's bf16 arithmetic,
 * {@code bf16(bf16(q·s) + b)}, bit for bit. 2- and 4-bit codes read their bytes and look each value
 * up in a per-group table; 8-bit codes widen their bytes; 3-, 5- and 6-bit codes decode from words
 * ({@link AffineVectors}); runs whose scales and biases are finite skip the quiet-NaN repair. Each
 * case is its own loop: a loop C2 compiled for some cases traps back to the interpreter when another
 * arrives. Stateless; tables immutable.
 */
final class AffineBf16Decoding {
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Short> HALF = VectorSpecies.of(short.class, VectorShape.forBitSize(I.length() * 16));
    private static final int L = I.length();
    private static final VectorSpecies<Byte> BYTE16 = VectorSpecies.of(byte.class, VectorShape.forBitSize(Math.max(64, L * 8)));
    private static final int PARTS = Math.max(1, 32 / L); // vectors per 32-code block

    private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED;
    /**
     * For 3-, 5- and 6-bit codes on 16 lanes, per part p of a block: lane i's two bytes around code
     * 16p + i (a byte shuffle over the block's first 64 bytes) and the right shift that brings the code
     * down. Every code of at most 8 bits lies inside the 16-bit window at its first byte.
     */
    private static final boolean[] WINDOW = new boolean[9];
    // per width and part, [(bits·PARTS + p)·64 + byte] and [(bits·PARTS + p)·16 + lane]: plain arrays loaded
    // with fromArray before the block loop (as VectorShuffle and IntVector array elements, their payloads were
    // reloaded and wrapped for every block and part)
    private static final byte[] WINDOW_BYTES = new byte[9 * PARTS * 64];
    private static final int[] WINDOW_SHIFTS = new int[9 * PARTS * 16];

    static {
        if (L == 16 && BYTES.length() == 64) {
            for (int bits : new int[] {3, 5, 6}) {
                WINDOW[bits] = true;
                for (int p = 0; p < PARTS; p++) {
                    int at = (bits * PARTS + p) * 64;
                    for (int i = 0; i < L; i++) {
                        int bit = bits * (L * p + i);
                        WINDOW_BYTES[at + 4 * i] = (byte) (bit >>> 3);
                        WINDOW_BYTES[at + 4 * i + 1] = (byte) ((bit >>> 3) + 1);
                        WINDOW_BYTES[at + 4 * i + 2] = (byte) ((bit >>> 3) + 1); // above the window: shifted out or masked off
                        WINDOW_BYTES[at + 4 * i + 3] = (byte) ((bit >>> 3) + 1);
                        WINDOW_SHIFTS[(bits * PARTS + p) * 16 + i] = bit & 7;
                    }
                }
            }
        }
    }

    private AffineBf16Decoding() {
    }

    /** True when 3-, 5- and 6-bit codes decode through {@link #WINDOW}s (no word shuffles). */
    private static boolean windows(int bits) {
        return bits < WINDOW.length && WINDOW[bits];
    }

    /** {@link AffineVectors#dequantizeBlocksBf16}, whose arguments these are. */
    static void dequantize(MemorySegment packed, long byteOff, int bits, int blocks, float[] scales,
                           float[] biases, int firstCode, int groupShift, MemorySegment out, long outByte) {
        if (tabulates(bits) && groupShift >= 5) {
            dequantizeTabulatedBf16(packed, byteOff, bits, blocks, scales, biases, firstCode, groupShift, out, outByte);
            return;
        }
        dequantizeDirectBf16(packed, byteOff, bits, blocks, scales, biases, firstCode, groupShift, out, outByte);
    }

    /** {@link AffineVectors#dequantizeBlocksBf16} computing every code's value (widths of more values than lanes). */
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
        else if (windows(bits)) finiteWindowsBf16(packed, byteOff, bits, blocks, scales, biases, firstCode, groupShift, out, outByte);
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
                FloatVector q = (FloatVector) AffineVectors.codes(packed, blockByte, bits, p, mask).convert(VectorOperators.I2F, 0);
                IntVector v = AffineVectors.bf16Bits(AffineVectors.roundBf16(q.mul(s)).add(b));
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
                FloatVector q = (FloatVector) AffineVectors.codes(packed, blockByte, bits, p, mask).convert(VectorOperators.I2F, 0);
                FloatVector prod = finiteBf16Bits(q.mul(s)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
                ((ShortVector) finiteBf16Bits(prod.add(b)).convertShape(VectorOperators.I2S, HALF, 0))
                        .intoMemorySegment(out, outByte + 2L * (32 * k + p * L), ByteOrder.LITTLE_ENDIAN);
            }
        }
    }

    /** Finite scales, 5- and 6-bit codes cut from byte windows ({@link #WINDOW}). */
    private static void finiteWindowsBf16(MemorySegment packed, long byteOff, int bits, int blocks, float[] scales, float[] biases,
                                          int firstCode, int groupShift, MemorySegment out, long outByte) {
        IntVector mask = IntVector.broadcast(I, (1 << bits) - 1);
        for (int k = 0; k < blocks; k++) {
            ByteVector block = ByteVector.fromMemorySegment(BYTES, packed, byteOff + 4L * bits * k, ByteOrder.LITTLE_ENDIAN);
            int g = (firstCode + 32 * k) >>> groupShift;
            FloatVector s = FloatVector.broadcast(F, scales[g]);
            FloatVector b = FloatVector.broadcast(F, biases[g]);
            for (int p = 0; p < PARTS; p++) {
                // the window's indexes are a plain load each time: one loop body keeps the method small enough to inline its helpers
                ByteVector window = ByteVector.fromArray(BYTES, WINDOW_BYTES, (bits * PARTS + p) * 64);
                IntVector shift = IntVector.fromArray(I, WINDOW_SHIFTS, (bits * PARTS + p) * 16);
                IntVector c = window.selectFrom(block).reinterpretAsInts().lanewise(VectorOperators.LSHR, shift).and(mask);
                FloatVector q = (FloatVector) c.convert(VectorOperators.I2F, 0);
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

    /** {@link AffineVectors#bf16Bits} of a vector without NaN lanes (infinities round to themselves). */
    private static IntVector finiteBf16Bits(FloatVector v) {
        IntVector bits = v.reinterpretAsInts();
        return bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).add(0x7fff).lanewise(VectorOperators.LSHR, 16);
    }

    /** True when {@link AffineVectors#dequantizeBlocksBf16} decodes {@code bits}-bit codes through a per-group table of values in registers. */
    private static boolean tabulates(int bits) {
        // 2 and 4 bits read their codes as bytes, 3 bits through byte windows (no word shuffles; with the
        // word shuffles, computing 3-bit values measured faster than looking them up: 0.79 against 0.96 ms per 2 M codes)
        return (bits == 2 || bits == 4 || bits == 3 && windows(3)) && L == 16 && F.length() == L;
    }

    /**
     * {@link AffineVectors#dequantizeBlocksBf16} for widths whose 2^bits values fit one vector (see
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
        else if (bits == 3 && windows(3)) lookUp3Bf16(packed, byteOff, blocks, firstCode, groupShift, tables, out, outByte);
        else lookUpBf16(packed, byteOff, bits, 0, blocks, firstCode, groupShift, tables, out, outByte);
    }

    // The tables and the look-ups are two methods, not one: in one, C2 hits its node limit, stops
    // inlining the Vector API calls, and the vectors of the calls it did not inline are boxed.

    /** Per group g, the bf16 bits of {@code bf16(bf16(q·scale) + bias)} for q = 0 .. L − 1 at {@code tables[(g − first)·L]}. */
    private static void tabulateBf16(float[] scales, float[] biases, int first, int groups, int[] tables) {
        for (int g = 0; g < groups; g++) {
            FloatVector s = FloatVector.broadcast(F, scales[first + g]);
            FloatVector b = FloatVector.broadcast(F, biases[first + g]);
            AffineVectors.bf16Bits(AffineVectors.roundBf16(IOTA.mul(s)).add(b)).intoArray(tables, g * L);
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
                IntVector v = AffineVectors.codes(packed, blockByte, bits, p, mask).selectFrom(table);
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

    /** {@link #lookUpBf16} for 3-bit codes on 16 lanes: codes cut from byte windows ({@link #WINDOW}), then looked up. */
    private static void lookUp3Bf16(MemorySegment packed, long byteOff, int blocks, int firstCode, int groupShift, int[] tables,
                                    MemorySegment out, long outByte) {
        IntVector mask = IntVector.broadcast(I, 7);
        ByteVector window0 = ByteVector.fromArray(BYTES, WINDOW_BYTES, 3 * PARTS * 64);
        ByteVector window1 = ByteVector.fromArray(BYTES, WINDOW_BYTES, (3 * PARTS + 1) * 64);
        IntVector shift0 = IntVector.fromArray(I, WINDOW_SHIFTS, 3 * PARTS * 16);
        IntVector shift1 = IntVector.fromArray(I, WINDOW_SHIFTS, (3 * PARTS + 1) * 16);
        int first = firstCode >>> groupShift;
        for (int k = 0; k < blocks; k++) {
            ByteVector block = ByteVector.fromMemorySegment(BYTES, packed, byteOff + 12L * k, ByteOrder.LITTLE_ENDIAN);
            IntVector table = IntVector.fromArray(I, tables, (((firstCode + 32 * k) >>> groupShift) - first) * L);
            IntVector c = window0.selectFrom(block).reinterpretAsInts().lanewise(VectorOperators.LSHR, shift0).and(mask);
            ((ShortVector) c.selectFrom(table).convertShape(VectorOperators.I2S, HALF, 0))
                    .intoMemorySegment(out, outByte + 64L * k, ByteOrder.LITTLE_ENDIAN);
            c = window1.selectFrom(block).reinterpretAsInts().lanewise(VectorOperators.LSHR, shift1).and(mask);
            ((ShortVector) c.selectFrom(table).convertShape(VectorOperators.I2S, HALF, 0))
                    .intoMemorySegment(out, outByte + 64L * k + 2L * L, ByteOrder.LITTLE_ENDIAN);
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
}
