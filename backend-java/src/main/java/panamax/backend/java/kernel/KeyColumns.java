package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Sixteen key rows of packed code words turned into columns, {@code columns[w·16 + key]}, so that
 * kernels whose lanes are keys ({@link CodeColumns}) read one word of sixteen keys as one vector. Rows of sixteen words or more are loaded straight into
 * registers and transposed in four rounds of two-vector permutes; whole tiles of back-to-back rows of
 * 2, 4, 6 or 8 words several rows per vector, in fewer rounds; other rows of up to eight words as
 * sixteen-word rows (over-read). Needs sixteen int lanes ({@link #supported}). Stateless; tables
 * immutable.
 */
public final class KeyColumns {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /**
     * Two-vector permute indices of the transposition's rounds ({@code [k·16 + lane]}): round k swaps
     * bit k of the key and word indices.
     */
    private static final int[] LO = new int[64];
    private static final int[] HI = new int[64];
    /** Key k's lane after {@link #transposePairs}' rounds: key bit 0 moved to lane bit 3 above bits 3..1. */
    private static final int[] PAIR_ORDER = new int[16];
    /** Key k's lane after {@link #transposeQuads}' rounds: key bits 1..0 above bits 3..2. */
    private static final int[] QUAD_ORDER = new int[16];
    /** Key k's lane after {@link #transposeOctets}' round: key bits 2..0 above bit 3. */
    private static final int[] OCTET_ORDER = new int[16];
    /** {@link #transposePairs}' lane spreads: 8-word rows as they are; 6-word rows (lane 8 + w ← lane 6 + w) as 8-word halves. */
    private static final int[] PAIR_SPREAD = new int[32];

    static {
        for (int key = 0; key < 16; key++) PAIR_ORDER[key] = (key & 1) << 3 | key >>> 1;
        for (int key = 0; key < 16; key++) QUAD_ORDER[key] = (key & 3) << 2 | key >>> 2;
        for (int key = 0; key < 16; key++) OCTET_ORDER[key] = (key & 7) << 1 | key >>> 3;
        for (int l = 0; l < 16; l++) {
            PAIR_SPREAD[l] = l;
            PAIR_SPREAD[16 + l] = l < 8 ? l : 6 + l - 8;
        }
        for (int k = 0; k < 4; k++) {
            int bit = 1 << k;
            for (int w = 0; w < 16; w++) {
                LO[k * 16 + w] = (w & bit) == 0 ? w : 16 + w - bit;
                HI[k * 16 + w] = (w & bit) == 0 ? w + bit : 16 + w;
            }
        }
    }

    private KeyColumns() {
    }

    /** True when the preferred int vector has sixteen lanes, as the transposition is written for. */
    public static boolean supported() {
        return IS.length() == 16;
    }

    /**
     * Words {@code [w0, w0 + 16)} of the sixteen key rows from byte {@code at} ({@code rowBytes} apart;
     * past the first {@code tile} keys, the last of them again), transposed into
     * {@code columns[(w0 + w)·16 + key]}. The rows must hold those sixteen words. Loaded straight into
     * registers: staging them through a scratch first cost 6 % of an 8-bit step at head dim 64 (0.77 →
     * 0.73 ms per 8k tokens).
     */
    public static void transpose16(MemorySegment packed, long at, long rowBytes, int tile, int w0, int[] columns) {
        transposeRows(packed, at + 4L * w0, rowBytes, tile - 1, columns, w0 * 16);
    }

    /**
     * {@link #transpose16} for rows of at most eight words, into {@code columns[w·16 + key]} for w &lt; 8:
     * whole tiles of back-to-back rows of 8, 6, 4 or 2 words several rows per vector ({@link #transposePairs}
     * and its siblings), others as sixteen-word rows (the words past a row's own are the next row's or
     * whatever follows, never used), so sixteen words must be readable from each row's start.
     */
    public static void transpose8(MemorySegment packed, long at, long rowBytes, int tile, int[] columns) {
        if ((rowBytes == 32 || rowBytes == 24) && tile == 16 && at + 14 * rowBytes + 64 <= packed.byteSize()) {
            transposePairs(packed, at, rowBytes, columns);
            return;
        }
        if (rowBytes == 16 && tile == 16 && at + 16 * 16 <= packed.byteSize()) {
            transposeQuads(packed, at, columns);
            return;
        }
        if (rowBytes == 8 && tile == 16 && at + 16 * 8 <= packed.byteSize()) {
            transposeOctets(packed, at, columns);
            return;
        }
        transposeRows(packed, at, rowBytes, tile - 1, columns, 0);
    }

    /**
     * Sixteen back-to-back rows of 8 or 6 words at byte {@code at} into {@code columns[w·16 + key]}, w &lt; 8:
     * vector i is read at row 2i and its lanes spread so that rows 2i and 2i + 1 fill its two halves
     * (an identity for 8-word rows; 6-word rows leave words 6 and 7 of each column the next row's, never
     * used), then three rounds of eight two-vector permutes swap the word bits with the vector index (key
     * bits 3..1), and one permute per column puts its lanes in key order: 40 permutes, against
     * {@link #transposeRows}' 64 on half-empty vectors staged through a scratch.
     */
    private static void transposePairs(MemorySegment packed, long at, long rowBytes, int[] columns) {
        IntVector lo0 = IntVector.fromArray(IS, LO, 0), hi0 = IntVector.fromArray(IS, HI, 0);
        IntVector lo1 = IntVector.fromArray(IS, LO, 16), hi1 = IntVector.fromArray(IS, HI, 16);
        IntVector lo2 = IntVector.fromArray(IS, LO, 32), hi2 = IntVector.fromArray(IS, HI, 32);
        IntVector order = IntVector.fromArray(IS, PAIR_ORDER, 0);
        IntVector spread = IntVector.fromArray(IS, PAIR_SPREAD, rowBytes == 24 ? 16 : 0);
        long pair = 2 * rowBytes;
        IntVector r0 = spread.selectFrom(IntVector.fromMemorySegment(IS, packed, at, LE));
        IntVector r1 = spread.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 1 * pair, LE));
        IntVector r2 = spread.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 2 * pair, LE));
        IntVector r3 = spread.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 3 * pair, LE));
        IntVector r4 = spread.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 4 * pair, LE));
        IntVector r5 = spread.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 5 * pair, LE));
        IntVector r6 = spread.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 6 * pair, LE));
        IntVector r7 = spread.selectFrom(IntVector.fromMemorySegment(IS, packed, at + 7 * pair, LE));
        // round 0: vector index bit 0 (key bit 1) <-> lane bit 0 (word bit 0)
        IntVector s0 = lo0.selectFrom(r0, r1), s1 = hi0.selectFrom(r0, r1);
        IntVector s2 = lo0.selectFrom(r2, r3), s3 = hi0.selectFrom(r2, r3);
        IntVector s4 = lo0.selectFrom(r4, r5), s5 = hi0.selectFrom(r4, r5);
        IntVector s6 = lo0.selectFrom(r6, r7), s7 = hi0.selectFrom(r6, r7);
        // round 1: vector bit 1 (key bit 2) <-> lane bit 1 (word bit 1)
        r0 = lo1.selectFrom(s0, s2); r2 = hi1.selectFrom(s0, s2);
        r1 = lo1.selectFrom(s1, s3); r3 = hi1.selectFrom(s1, s3);
        r4 = lo1.selectFrom(s4, s6); r6 = hi1.selectFrom(s4, s6);
        r5 = lo1.selectFrom(s5, s7); r7 = hi1.selectFrom(s5, s7);
        // round 2: vector bit 2 (key bit 3) <-> lane bit 2 (word bit 2); vector i is now word i
        s0 = lo2.selectFrom(r0, r4); s4 = hi2.selectFrom(r0, r4);
        s1 = lo2.selectFrom(r1, r5); s5 = hi2.selectFrom(r1, r5);
        s2 = lo2.selectFrom(r2, r6); s6 = hi2.selectFrom(r2, r6);
        s3 = lo2.selectFrom(r3, r7); s7 = hi2.selectFrom(r3, r7);
        // lanes hold keys as (bit 0, bit 3, bit 2, bit 1): one permute each into key order
        order.selectFrom(s0).intoArray(columns, 0);
        order.selectFrom(s1).intoArray(columns, 16);
        order.selectFrom(s2).intoArray(columns, 32);
        order.selectFrom(s3).intoArray(columns, 48);
        order.selectFrom(s4).intoArray(columns, 64);
        order.selectFrom(s5).intoArray(columns, 80);
        order.selectFrom(s6).intoArray(columns, 96);
        order.selectFrom(s7).intoArray(columns, 112);
    }

    /**
     * {@link #transposePairs} for sixteen back-to-back 4-word rows (w &lt; 4): four rows per vector (lane =
     * key bits 1..0, word), two rounds swap the word bits with the vector index (key bits 3..2), one
     * permute per column restores key order.
     */
    private static void transposeQuads(MemorySegment packed, long at, int[] columns) {
        IntVector lo0 = IntVector.fromArray(IS, LO, 0), hi0 = IntVector.fromArray(IS, HI, 0);
        IntVector lo1 = IntVector.fromArray(IS, LO, 16), hi1 = IntVector.fromArray(IS, HI, 16);
        IntVector order = IntVector.fromArray(IS, QUAD_ORDER, 0);
        IntVector r0 = IntVector.fromMemorySegment(IS, packed, at, LE);
        IntVector r1 = IntVector.fromMemorySegment(IS, packed, at + 64, LE);
        IntVector r2 = IntVector.fromMemorySegment(IS, packed, at + 128, LE);
        IntVector r3 = IntVector.fromMemorySegment(IS, packed, at + 192, LE);
        IntVector s0 = lo0.selectFrom(r0, r1), s1 = hi0.selectFrom(r0, r1);
        IntVector s2 = lo0.selectFrom(r2, r3), s3 = hi0.selectFrom(r2, r3);
        order.selectFrom(lo1.selectFrom(s0, s2)).intoArray(columns, 0);
        order.selectFrom(lo1.selectFrom(s1, s3)).intoArray(columns, 16);
        order.selectFrom(hi1.selectFrom(s0, s2)).intoArray(columns, 32);
        order.selectFrom(hi1.selectFrom(s1, s3)).intoArray(columns, 48);
    }

    /**
     * {@link #transposePairs} for sixteen back-to-back 2-word rows (w &lt; 2): eight rows per vector, one
     * round swaps the word bit with the vector index (key bit 3), one permute per column restores key order.
     */
    private static void transposeOctets(MemorySegment packed, long at, int[] columns) {
        IntVector lo0 = IntVector.fromArray(IS, LO, 0), hi0 = IntVector.fromArray(IS, HI, 0);
        IntVector order = IntVector.fromArray(IS, OCTET_ORDER, 0);
        IntVector r0 = IntVector.fromMemorySegment(IS, packed, at, LE);
        IntVector r1 = IntVector.fromMemorySegment(IS, packed, at + 64, LE);
        order.selectFrom(lo0.selectFrom(r0, r1)).intoArray(columns, 0);
        order.selectFrom(hi0.selectFrom(r0, r1)).intoArray(columns, 16);
    }

    /**
     * The sixteen words at byte {@code at + min(j, last)·rowBytes} of rows j &lt; 16, transposed into
     * {@code columns[off + w·16 + j]}: four rounds of sixteen two-vector permutes, each swapping one bit
     * of the key and word indices, in registers.
     */
    private static void transposeRows(MemorySegment packed, long at, long rowBytes, int last, int[] columns, int off) {
        IntVector lo0 = IntVector.fromArray(IS, LO, 0), hi0 = IntVector.fromArray(IS, HI, 0);
        IntVector lo1 = IntVector.fromArray(IS, LO, 16), hi1 = IntVector.fromArray(IS, HI, 16);
        IntVector lo2 = IntVector.fromArray(IS, LO, 32), hi2 = IntVector.fromArray(IS, HI, 32);
        IntVector lo3 = IntVector.fromArray(IS, LO, 48), hi3 = IntVector.fromArray(IS, HI, 48);
        IntVector r0 = IntVector.fromMemorySegment(IS, packed, at + Math.min(0, last) * rowBytes, LE);
        IntVector r1 = IntVector.fromMemorySegment(IS, packed, at + Math.min(1, last) * rowBytes, LE);
        IntVector r2 = IntVector.fromMemorySegment(IS, packed, at + Math.min(2, last) * rowBytes, LE);
        IntVector r3 = IntVector.fromMemorySegment(IS, packed, at + Math.min(3, last) * rowBytes, LE);
        IntVector r4 = IntVector.fromMemorySegment(IS, packed, at + Math.min(4, last) * rowBytes, LE);
        IntVector r5 = IntVector.fromMemorySegment(IS, packed, at + Math.min(5, last) * rowBytes, LE);
        IntVector r6 = IntVector.fromMemorySegment(IS, packed, at + Math.min(6, last) * rowBytes, LE);
        IntVector r7 = IntVector.fromMemorySegment(IS, packed, at + Math.min(7, last) * rowBytes, LE);
        IntVector r8 = IntVector.fromMemorySegment(IS, packed, at + Math.min(8, last) * rowBytes, LE);
        IntVector r9 = IntVector.fromMemorySegment(IS, packed, at + Math.min(9, last) * rowBytes, LE);
        IntVector r10 = IntVector.fromMemorySegment(IS, packed, at + Math.min(10, last) * rowBytes, LE);
        IntVector r11 = IntVector.fromMemorySegment(IS, packed, at + Math.min(11, last) * rowBytes, LE);
        IntVector r12 = IntVector.fromMemorySegment(IS, packed, at + Math.min(12, last) * rowBytes, LE);
        IntVector r13 = IntVector.fromMemorySegment(IS, packed, at + Math.min(13, last) * rowBytes, LE);
        IntVector r14 = IntVector.fromMemorySegment(IS, packed, at + Math.min(14, last) * rowBytes, LE);
        IntVector r15 = IntVector.fromMemorySegment(IS, packed, at + Math.min(15, last) * rowBytes, LE);
        // round 0: rows i and i + 1 exchange their odd blocks
        IntVector s0 = lo0.selectFrom(r0, r1);
        IntVector s1 = hi0.selectFrom(r0, r1);
        IntVector s2 = lo0.selectFrom(r2, r3);
        IntVector s3 = hi0.selectFrom(r2, r3);
        IntVector s4 = lo0.selectFrom(r4, r5);
        IntVector s5 = hi0.selectFrom(r4, r5);
        IntVector s6 = lo0.selectFrom(r6, r7);
        IntVector s7 = hi0.selectFrom(r6, r7);
        IntVector s8 = lo0.selectFrom(r8, r9);
        IntVector s9 = hi0.selectFrom(r8, r9);
        IntVector s10 = lo0.selectFrom(r10, r11);
        IntVector s11 = hi0.selectFrom(r10, r11);
        IntVector s12 = lo0.selectFrom(r12, r13);
        IntVector s13 = hi0.selectFrom(r12, r13);
        IntVector s14 = lo0.selectFrom(r14, r15);
        IntVector s15 = hi0.selectFrom(r14, r15);
        // round 1: rows i and i + 2 exchange their 2-word blocks
        r0 = lo1.selectFrom(s0, s2);
        r2 = hi1.selectFrom(s0, s2);
        r1 = lo1.selectFrom(s1, s3);
        r3 = hi1.selectFrom(s1, s3);
        r4 = lo1.selectFrom(s4, s6);
        r6 = hi1.selectFrom(s4, s6);
        r5 = lo1.selectFrom(s5, s7);
        r7 = hi1.selectFrom(s5, s7);
        r8 = lo1.selectFrom(s8, s10);
        r10 = hi1.selectFrom(s8, s10);
        r9 = lo1.selectFrom(s9, s11);
        r11 = hi1.selectFrom(s9, s11);
        r12 = lo1.selectFrom(s12, s14);
        r14 = hi1.selectFrom(s12, s14);
        r13 = lo1.selectFrom(s13, s15);
        r15 = hi1.selectFrom(s13, s15);
        // round 2: rows i and i + 4 exchange their 4-word blocks
        s0 = lo2.selectFrom(r0, r4);
        s4 = hi2.selectFrom(r0, r4);
        s1 = lo2.selectFrom(r1, r5);
        s5 = hi2.selectFrom(r1, r5);
        s2 = lo2.selectFrom(r2, r6);
        s6 = hi2.selectFrom(r2, r6);
        s3 = lo2.selectFrom(r3, r7);
        s7 = hi2.selectFrom(r3, r7);
        s8 = lo2.selectFrom(r8, r12);
        s12 = hi2.selectFrom(r8, r12);
        s9 = lo2.selectFrom(r9, r13);
        s13 = hi2.selectFrom(r9, r13);
        s10 = lo2.selectFrom(r10, r14);
        s14 = hi2.selectFrom(r10, r14);
        s11 = lo2.selectFrom(r11, r15);
        s15 = hi2.selectFrom(r11, r15);
        // round 3: rows i and i + 8 exchange their 8-word blocks
        r0 = lo3.selectFrom(s0, s8);
        r8 = hi3.selectFrom(s0, s8);
        r1 = lo3.selectFrom(s1, s9);
        r9 = hi3.selectFrom(s1, s9);
        r2 = lo3.selectFrom(s2, s10);
        r10 = hi3.selectFrom(s2, s10);
        r3 = lo3.selectFrom(s3, s11);
        r11 = hi3.selectFrom(s3, s11);
        r4 = lo3.selectFrom(s4, s12);
        r12 = hi3.selectFrom(s4, s12);
        r5 = lo3.selectFrom(s5, s13);
        r13 = hi3.selectFrom(s5, s13);
        r6 = lo3.selectFrom(s6, s14);
        r14 = hi3.selectFrom(s6, s14);
        r7 = lo3.selectFrom(s7, s15);
        r15 = hi3.selectFrom(s7, s15);
        r0.intoArray(columns, off + 0);
        r1.intoArray(columns, off + 16);
        r2.intoArray(columns, off + 32);
        r3.intoArray(columns, off + 48);
        r4.intoArray(columns, off + 64);
        r5.intoArray(columns, off + 80);
        r6.intoArray(columns, off + 96);
        r7.intoArray(columns, off + 112);
        r8.intoArray(columns, off + 128);
        r9.intoArray(columns, off + 144);
        r10.intoArray(columns, off + 160);
        r11.intoArray(columns, off + 176);
        r12.intoArray(columns, off + 192);
        r13.intoArray(columns, off + 208);
        r14.intoArray(columns, off + 224);
        r15.intoArray(columns, off + 240);
    }
}
