package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code out[m, n] = Σ_k x[m, k]·W[n, k]} for any number of x rows, each output row bit-identical
 * to the same x row computed alone: every element is ONE accumulator vector over k in chunk order
 * (f32: one FMA per vector of k; bf16: per {@link MatVec#BF16_BLOCK} the even half, then the odd
 * half, against x from {@link MatVec#interleaveForBf16}), reduced by {@link Lanes#sum}, then the
 * scalar k tail added to that sum in order. That order does not depend on how elements are blocked,
 * so the kernels block freely for speed: four weight rows are streamed together and each weight
 * vector, once loaded and widened, is FMA'd into four x rows (a 4 × 4 block of accumulators); x rows
 * beyond a multiple of four take a 4 × 1 block (four independent chains: one x row runs at the speed
 * of the weight stream), weight rows beyond a multiple of four one chain each. Many x rows (prefill)
 * are taken in tiles that stay in L2 against panels of weight rows. Callers own every array; the
 * kernels keep no state and are thread-safe.
 */
public final class MultiRowMatVec {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int F = S.length();
    private static final VectorSpecies<Short> SS = ShortVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
    private static final int B = MatVec.BF16_BLOCK;
    /** Bytes of x rows one tile keeps (L2-resident while a panel of weight rows sweeps it). */
    private static final int X_TILE_BYTES = 192 * 1024;
    /** Bytes of weight rows (as stored, or decoded to f32) one panel keeps. */
    private static final int PANEL_BYTES = 128 * 1024;
    /**
     * One x row streams four weight rows far apart ({@code bf16FarRows}); {@code -Dpanamax.bf16.farRows=false}
     * streams one row at a time instead, for A/B runs on other machines (an earlier VM read four adjacent rows up
     * to 13 % slower than one; far apart was not measured there).
     */
    static final boolean FAR_ROWS = Boolean.parseBoolean(System.getProperty("panamax.bf16.farRows", "true"));
    /**
     * Rows of at most this many values stream eight far apart instead of four ({@code bf16FarRows}); 0 keeps four for
     * every length, for A/B runs.
     */
    static final int EIGHT_FAR_ROWS_MAX_K = Integer.getInteger("panamax.bf16.eightFarRowsMaxK", 1024);
    /** Up to this many x rows go in one tile whatever their length (batched decode). */
    private static final int SMALL_ROWS = 8;

    private MultiRowMatVec() {
    }

    /** x rows per tile: all of a few, else as many (a multiple of four) as fill {@link #X_TILE_BYTES}. */
    static int xTile(int rows, int k) {
        if (rows <= SMALL_ROWS) return Math.max(rows, 1);
        return Math.max(4, X_TILE_BYTES / (4 * Math.max(k, 1)) / 4 * 4);
    }

    /** Weight rows per panel of {@code bytesPerValue}-byte values (a multiple of four); four for a few x rows. */
    static int panel(int rows, int k, int bytesPerValue) {
        if (rows <= SMALL_ROWS) return 4;
        return Math.max(4, PANEL_BYTES / (bytesPerValue * Math.max(k, 1)) / 4 * 4);
    }

    /**
     * bf16 W (row {@code n} at byte {@code wOff + n·ldwBytes}): for {@code n in [n0, n1)} and
     * {@code m < rows}, {@code out[outOff + m·ldo + n] = dot(W[n], x[m])}; xi holds the x rows (stride
     * k) arranged by {@link MatVec#interleaveForBf16}. Every element is one chain: per block the even
     * half, then the odd half, FMA'd into one accumulator, summed by {@link Lanes#sum}, then the scalar
     * k tail added in order. One x row streams four weight rows far apart at a time ({@code bf16FarRows}:
     * four chains, four sequential streams, each x load shared). More x rows
     * take 4 × 4 blocks of accumulators (each weight vector widened once for four x rows), x rows past a
     * multiple of four the four-row loop, weight rows past a multiple of four one chain each.
     */
    public static void bf16(MemorySegment w, long wOff, long ldwBytes, int k, float[] xi, int rows,
                            int n0, int n1, float[] out, int outOff, int ldo) {
        if (rows == 1) {
            if (FAR_ROWS) {
                bf16FarRows(w, wOff, ldwBytes, k, xi, n0, n1, out, outOff, k <= EIGHT_FAR_ROWS_MAX_K ? 8 : 4);
            } else {
                for (int n = n0; n < n1; n++) out[outOff + n] = bf16Row(w, wOff + n * ldwBytes, k, xi, 0);
            }
            return;
        }
        float[] sums = blockSums();
        int tile = xTile(rows, k);
        int panel = panel(rows, k, 2);
        for (int p0 = n0; p0 < n1; p0 += panel) {
            int p1 = Math.min(n1, p0 + panel);
            for (int m0 = 0; m0 < rows; m0 += tile) {
                int m1 = Math.min(rows, m0 + tile);
                int quads = p0 + (p1 - p0) / 4 * 4;
                int m = m0;
                for (; m + 4 <= m1; m += 4) {
                    for (int n = p0; n < quads; n += 4) bf16Block4(w, wOff + n * ldwBytes, ldwBytes, k, xi, m, sums, out, outOff + m * ldo + n, ldo);
                }
                for (; m < m1; m++) {
                    for (int n = p0; n < quads; n += 4) bf16Block1(w, wOff + n * ldwBytes, ldwBytes, k, xi, m * k, out, outOff + m * ldo + n, 1);
                }
                for (int n = quads; n < p1; n++) {
                    for (int r = m0; r < m1; r++) out[outOff + r * ldo + n] = bf16Row(w, wOff + n * ldwBytes, k, xi, r * k);
                }
            }
        }
    }

    /** Four weight rows from {@code r0} × x rows {@code m..m+3}; results at {@code out[o + j·ldo + i]} for row m+j, weight i. */
    private static void bf16Block4(MemorySegment w, long r0, long ld, int k, float[] xi, int m, float[] sums, float[] out, int o, int ldo) {
        FloatVector a00 = FloatVector.zero(S), a01 = FloatVector.zero(S), a02 = FloatVector.zero(S), a03 = FloatVector.zero(S);
        FloatVector a10 = FloatVector.zero(S), a11 = FloatVector.zero(S), a12 = FloatVector.zero(S), a13 = FloatVector.zero(S);
        FloatVector a20 = FloatVector.zero(S), a21 = FloatVector.zero(S), a22 = FloatVector.zero(S), a23 = FloatVector.zero(S);
        FloatVector a30 = FloatVector.zero(S), a31 = FloatVector.zero(S), a32 = FloatVector.zero(S), a33 = FloatVector.zero(S);
        long r1 = r0 + ld, r2 = r1 + ld, r3 = r2 + ld;
        int x0 = m * k, x1 = x0 + k, x2 = x1 + k, x3 = x2 + k;
        int bound = k - k % B;
        for (int i = 0; i < bound; i += B) {
            IntVector v0 = ShortVector.fromMemorySegment(SS, w, r0 + 2L * i, LE).reinterpretAsInts(), v1 = ShortVector.fromMemorySegment(SS, w, r1 + 2L * i, LE).reinterpretAsInts(), v2 = ShortVector.fromMemorySegment(SS, w, r2 + 2L * i, LE).reinterpretAsInts(), v3 = ShortVector.fromMemorySegment(SS, w, r3 + 2L * i, LE).reinterpretAsInts();
            // the even halves, then the odd halves: each x vector feeds four weight rows
            FloatVector w0 = v0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats(), w1 = v1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats(), w2 = v2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats(), w3 = v3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            FloatVector x = FloatVector.fromArray(S, xi, x0 + i);
            a00 = w0.fma(x, a00); a10 = w1.fma(x, a10); a20 = w2.fma(x, a20); a30 = w3.fma(x, a30);
            x = FloatVector.fromArray(S, xi, x1 + i);
            a01 = w0.fma(x, a01); a11 = w1.fma(x, a11); a21 = w2.fma(x, a21); a31 = w3.fma(x, a31);
            x = FloatVector.fromArray(S, xi, x2 + i);
            a02 = w0.fma(x, a02); a12 = w1.fma(x, a12); a22 = w2.fma(x, a22); a32 = w3.fma(x, a32);
            x = FloatVector.fromArray(S, xi, x3 + i);
            a03 = w0.fma(x, a03); a13 = w1.fma(x, a13); a23 = w2.fma(x, a23); a33 = w3.fma(x, a33);
            w0 = v0.and(0xffff0000).reinterpretAsFloats(); w1 = v1.and(0xffff0000).reinterpretAsFloats(); w2 = v2.and(0xffff0000).reinterpretAsFloats(); w3 = v3.and(0xffff0000).reinterpretAsFloats();
            x = FloatVector.fromArray(S, xi, x0 + i + F);
            a00 = w0.fma(x, a00); a10 = w1.fma(x, a10); a20 = w2.fma(x, a20); a30 = w3.fma(x, a30);
            x = FloatVector.fromArray(S, xi, x1 + i + F);
            a01 = w0.fma(x, a01); a11 = w1.fma(x, a11); a21 = w2.fma(x, a21); a31 = w3.fma(x, a31);
            x = FloatVector.fromArray(S, xi, x2 + i + F);
            a02 = w0.fma(x, a02); a12 = w1.fma(x, a12); a22 = w2.fma(x, a22); a32 = w3.fma(x, a32);
            x = FloatVector.fromArray(S, xi, x3 + i + F);
            a03 = w0.fma(x, a03); a13 = w1.fma(x, a13); a23 = w2.fma(x, a23); a33 = w3.fma(x, a33);
        }
        // the accumulators leave through an array: this method is too large for C2 to inline the
        // lane sums, and a vector passed to a call that is not inlined is boxed
        a00.intoArray(sums, 0 * F); a01.intoArray(sums, 1 * F); a02.intoArray(sums, 2 * F); a03.intoArray(sums, 3 * F);
        a10.intoArray(sums, 4 * F); a11.intoArray(sums, 5 * F); a12.intoArray(sums, 6 * F); a13.intoArray(sums, 7 * F);
        a20.intoArray(sums, 8 * F); a21.intoArray(sums, 9 * F); a22.intoArray(sums, 10 * F); a23.intoArray(sums, 11 * F);
        a30.intoArray(sums, 12 * F); a31.intoArray(sums, 13 * F); a32.intoArray(sums, 14 * F); a33.intoArray(sums, 15 * F);
        Lanes.sums(sums, 0, 16, sums, 16 * F);
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                out[o + j * ldo + i] = tail(w, r0 + i * ld, k, bound, xi, x0 + j * k, sums[16 * F + 4 * i + j]);
            }
        }
    }

    /**
     * One x row against weight rows {@code [n0, n1)}: the range is cut into {@code parts} (4 or 8) parts streamed side by
     * side (rows {@code n0 + j} of each part together), each part a sequential stream of whole rows. Four streams in
     * distinct pages keep more lines in flight than one (one stream per core read 66-77 % of the read probe on the
     * 2-core Intel VM, four far apart 89-96 %); four adjacent rows of short k share 4 KiB pages, jump back and forth
     * inside them and lose the prefetcher (k = 768: slower than one). A short row (k = 768: 1.5 KiB) costs few
     * instructions per stream, so eight parts keep more lines in flight than four. Each output is still its one chain.
     */
    private static void bf16FarRows(MemorySegment w, long wOff, long ld, int k, float[] xi, int n0, int n1, float[] out, int outOff, int parts) {
        int part = (n1 - n0) / parts;
        for (int n = n0; n < n0 + part; n++) {
            if (parts == 8) bf16Block8(w, wOff + n * ld, part * ld, k, xi, out, outOff + n, part);
            else bf16Block1(w, wOff + n * ld, part * ld, k, xi, 0, out, outOff + n, part);
        }
        for (int n = n0 + parts * part; n < n1; n++) out[outOff + n] = bf16Row(w, wOff + n * ld, k, xi, 0);
    }

    /** Eight weight rows from {@code r0}, {@code ld} bytes apart, × the x row at {@code xi[0..]}: eight chains, as {@link #bf16Block1}. */
    private static void bf16Block8(MemorySegment w, long r0, long ld, int k, float[] xi, float[] out, int o, int ldOut) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        FloatVector a4 = FloatVector.zero(S), a5 = FloatVector.zero(S), a6 = FloatVector.zero(S), a7 = FloatVector.zero(S);
        long r1 = r0 + ld, r2 = r1 + ld, r3 = r2 + ld, r4 = r3 + ld, r5 = r4 + ld, r6 = r5 + ld, r7 = r6 + ld;
        int bound = k - k % B;
        for (int i = 0; i < bound; i += B) {
            IntVector v0 = ShortVector.fromMemorySegment(SS, w, r0 + 2L * i, LE).reinterpretAsInts(), v1 = ShortVector.fromMemorySegment(SS, w, r1 + 2L * i, LE).reinterpretAsInts();
            IntVector v2 = ShortVector.fromMemorySegment(SS, w, r2 + 2L * i, LE).reinterpretAsInts(), v3 = ShortVector.fromMemorySegment(SS, w, r3 + 2L * i, LE).reinterpretAsInts();
            IntVector v4 = ShortVector.fromMemorySegment(SS, w, r4 + 2L * i, LE).reinterpretAsInts(), v5 = ShortVector.fromMemorySegment(SS, w, r5 + 2L * i, LE).reinterpretAsInts();
            IntVector v6 = ShortVector.fromMemorySegment(SS, w, r6 + 2L * i, LE).reinterpretAsInts(), v7 = ShortVector.fromMemorySegment(SS, w, r7 + 2L * i, LE).reinterpretAsInts();
            FloatVector x = FloatVector.fromArray(S, xi, i);
            a0 = v0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a0); a1 = v1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a1);
            a2 = v2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a2); a3 = v3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a3);
            a4 = v4.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a4); a5 = v5.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a5);
            a6 = v6.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a6); a7 = v7.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a7);
            x = FloatVector.fromArray(S, xi, i + F);
            a0 = v0.and(0xffff0000).reinterpretAsFloats().fma(x, a0); a1 = v1.and(0xffff0000).reinterpretAsFloats().fma(x, a1);
            a2 = v2.and(0xffff0000).reinterpretAsFloats().fma(x, a2); a3 = v3.and(0xffff0000).reinterpretAsFloats().fma(x, a3);
            a4 = v4.and(0xffff0000).reinterpretAsFloats().fma(x, a4); a5 = v5.and(0xffff0000).reinterpretAsFloats().fma(x, a5);
            a6 = v6.and(0xffff0000).reinterpretAsFloats().fma(x, a6); a7 = v7.and(0xffff0000).reinterpretAsFloats().fma(x, a7);
        }
        out[o] = tail(w, r0, k, bound, xi, 0, Lanes.sum(a0));
        out[o + ldOut] = tail(w, r1, k, bound, xi, 0, Lanes.sum(a1));
        out[o + 2 * ldOut] = tail(w, r2, k, bound, xi, 0, Lanes.sum(a2));
        out[o + 3 * ldOut] = tail(w, r3, k, bound, xi, 0, Lanes.sum(a3));
        out[o + 4 * ldOut] = tail(w, r4, k, bound, xi, 0, Lanes.sum(a4));
        out[o + 5 * ldOut] = tail(w, r5, k, bound, xi, 0, Lanes.sum(a5));
        out[o + 6 * ldOut] = tail(w, r6, k, bound, xi, 0, Lanes.sum(a6));
        out[o + 7 * ldOut] = tail(w, r7, k, bound, xi, 0, Lanes.sum(a7));
    }

    /**
     * Four weight rows from {@code r0}, {@code ld} bytes apart, × the x row at {@code xi[x0..]}: one chain per weight
     * row, four in flight; results at {@code out[o + i·ldOut]}.
     */
    private static void bf16Block1(MemorySegment w, long r0, long ld, int k, float[] xi, int x0, float[] out, int o, int ldOut) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        long r1 = r0 + ld, r2 = r1 + ld, r3 = r2 + ld;
        int bound = k - k % B;
        // Each block's values are loaded one block ahead of their use: a stream's next lines are requested before the
        // current block's widening and FMAs, behind which the out-of-order window would otherwise reach them. BackendAb,
        // two threads, weights from DRAM, one x row (2026-12-06): 0.93-0.97x the time at k = 2048 and 4096 (same bits);
        // the eight-row block of short rows (bf16Block8) read 1.01-1.05x so, and stays as it was.
        if (bound > 0) { // the first block is loaded before the loop
            long lastBlock = 2L * (bound - B);
            IntVector n0 = ShortVector.fromMemorySegment(SS, w, r0, LE).reinterpretAsInts(), n1 = ShortVector.fromMemorySegment(SS, w, r1, LE).reinterpretAsInts(), n2 = ShortVector.fromMemorySegment(SS, w, r2, LE).reinterpretAsInts(), n3 = ShortVector.fromMemorySegment(SS, w, r3, LE).reinterpretAsInts();
            for (int i = 0; i < bound; i += B) {
                IntVector v0 = n0, v1 = n1, v2 = n2, v3 = n3;
                long ahead = Math.min(2L * (i + B), lastBlock);
                n0 = ShortVector.fromMemorySegment(SS, w, r0 + ahead, LE).reinterpretAsInts(); n1 = ShortVector.fromMemorySegment(SS, w, r1 + ahead, LE).reinterpretAsInts(); n2 = ShortVector.fromMemorySegment(SS, w, r2 + ahead, LE).reinterpretAsInts(); n3 = ShortVector.fromMemorySegment(SS, w, r3 + ahead, LE).reinterpretAsInts();
                FloatVector x = FloatVector.fromArray(S, xi, x0 + i);
                a0 = v0.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a0); a1 = v1.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a1); a2 = v2.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a2); a3 = v3.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(x, a3);
                x = FloatVector.fromArray(S, xi, x0 + i + F);
                a0 = v0.and(0xffff0000).reinterpretAsFloats().fma(x, a0); a1 = v1.and(0xffff0000).reinterpretAsFloats().fma(x, a1); a2 = v2.and(0xffff0000).reinterpretAsFloats().fma(x, a2); a3 = v3.and(0xffff0000).reinterpretAsFloats().fma(x, a3);
            }
        }
        out[o] = tail(w, r0, k, bound, xi, x0, Lanes.sum(a0));
        out[o + ldOut] = tail(w, r1, k, bound, xi, x0, Lanes.sum(a1));
        out[o + 2 * ldOut] = tail(w, r2, k, bound, xi, x0, Lanes.sum(a2));
        out[o + 3 * ldOut] = tail(w, r3, k, bound, xi, x0, Lanes.sum(a3));
    }

    /** One bf16 weight row (byte {@code row}) against the x row at {@code xi[xo..]}: the same single chain. */
    static float bf16Row(MemorySegment w, long row, int k, float[] xi, int xo) {
        FloatVector a = FloatVector.zero(S);
        int bound = k - k % B;
        for (int i = 0; i < bound; i += B) {
            IntVector v = ShortVector.fromMemorySegment(SS, w, row + 2L * i, LE).reinterpretAsInts();
            a = v.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().fma(FloatVector.fromArray(S, xi, xo + i), a);
            a = v.and(0xffff0000).reinterpretAsFloats().fma(FloatVector.fromArray(S, xi, xo + i + F), a);
        }
        return tail(w, row, k, bound, xi, xo, Lanes.sum(a));
    }

    /** {@code sum} plus the scalar k tail {@code [bound, k)} of one bf16 row against x, in order; small enough to inline. */
    private static float tail(MemorySegment w, long row, int k, int bound, float[] xi, int xo, float sum) {
        return bound == k ? sum : tailLoop(w, row, k, bound, xi, xo, sum);
    }

    private static float tailLoop(MemorySegment w, long row, int k, int bound, float[] xi, int xo, float sum) {
        for (int i = bound; i < k; i++) sum += Floats.bf16ToFloat(w.get(I16, row + 2L * i)) * xi[xo + i];
        return sum;
    }

    /**
     * f32 or f16 W in a segment (row {@code n} at byte {@code wOff + n·ldwBytes}), x in natural order:
     * panels of weight rows are widened to f32 (exactly) and go through {@link #f32}, so each output is
     * {@link MatVec#dot} of the widened row and the x row.
     */
    public static void widened(MemorySegment w, long wOff, long ldwBytes, boolean f16, int k, float[] x, int rows,
                               int n0, int n1, float[] out, int outOff, int ldo) {
        int panel = panel(rows, k, 4);
        float[] rowsF32 = new float[Math.min(panel, n1 - n0) * k];
        float[] sums = blockSums();
        for (int p0 = n0; p0 < n1; p0 += panel) {
            int nb = Math.min(panel, n1 - p0);
            for (int j = 0; j < nb; j++) {
                long row = wOff + (p0 + j) * ldwBytes;
                if (f16) {
                    for (int i = 0; i < k; i++) rowsF32[j * k + i] = Float.float16ToFloat(w.get(I16, row + 2L * i));
                } else {
                    MemorySegment.copy(w, F32, row, rowsF32, j * k, k);
                }
            }
            f32(rowsF32, 0, nb, k, x, rows, out, outOff + p0, ldo, sums);
        }
    }

    /** Scratch for a 4 × 4 block's accumulators and their sums ({@link #f32} takes it from its caller). */
    public static float[] blockSums() {
        return new float[16 * F + 16];
    }

    /**
     * f32 weight rows held in an array ({@code nb} rows of k from {@code wOff}, e.g. a decoded block
     * of quantized rows) against x rows (stride k, same element order as the weights):
     * {@code out[outOff + m·ldo + j] = dot(w[j], x[m])} ({@link MatVec#dot}'s bits) for {@code j < nb},
     * {@code m < rows}; {@code sums} from {@link #blockSums} (called once per block of weight rows, so
     * the caller keeps it).
     */
    public static void f32(float[] w, int wOff, int nb, int k, float[] x, int rows, float[] out, int outOff, int ldo, float[] sums) {
        int tile = xTile(rows, k);
        for (int m0 = 0; m0 < rows; m0 += tile) {
            int m1 = Math.min(rows, m0 + tile);
            int j = 0;
            for (; j + 4 <= nb; j += 4) {
                int m = m0;
                for (; m + 4 <= m1; m += 4) f32Block4(w, wOff + j * k, k, x, m, sums, out, outOff + m * ldo + j, ldo);
                for (; m < m1; m++) f32Block1(w, wOff + j * k, k, x, m * k, out, outOff + m * ldo + j);
            }
            for (; j < nb; j++) {
                for (int m = m0; m < m1; m++) out[outOff + m * ldo + j] = MatVec.dot(w, wOff + j * k, x, m * k, k);
            }
        }
    }

    private static void f32Block4(float[] w, int w0ff, int k, float[] xs, int m, float[] sums, float[] out, int o, int ldo) {
        FloatVector a00 = FloatVector.zero(S), a01 = FloatVector.zero(S), a02 = FloatVector.zero(S), a03 = FloatVector.zero(S);
        FloatVector a10 = FloatVector.zero(S), a11 = FloatVector.zero(S), a12 = FloatVector.zero(S), a13 = FloatVector.zero(S);
        FloatVector a20 = FloatVector.zero(S), a21 = FloatVector.zero(S), a22 = FloatVector.zero(S), a23 = FloatVector.zero(S);
        FloatVector a30 = FloatVector.zero(S), a31 = FloatVector.zero(S), a32 = FloatVector.zero(S), a33 = FloatVector.zero(S);
        int q0 = w0ff, q1 = q0 + k, q2 = q1 + k, q3 = q2 + k;
        int x0 = m * k, x1 = x0 + k, x2 = x1 + k, x3 = x2 + k;
        int bound = S.loopBound(k);
        for (int i = 0; i < bound; i += F) {
            FloatVector w0 = FloatVector.fromArray(S, w, q0 + i), w1 = FloatVector.fromArray(S, w, q1 + i);
            FloatVector w2 = FloatVector.fromArray(S, w, q2 + i), w3 = FloatVector.fromArray(S, w, q3 + i);
            FloatVector x = FloatVector.fromArray(S, xs, x0 + i);
            a00 = w0.fma(x, a00); a10 = w1.fma(x, a10); a20 = w2.fma(x, a20); a30 = w3.fma(x, a30);
            x = FloatVector.fromArray(S, xs, x1 + i);
            a01 = w0.fma(x, a01); a11 = w1.fma(x, a11); a21 = w2.fma(x, a21); a31 = w3.fma(x, a31);
            x = FloatVector.fromArray(S, xs, x2 + i);
            a02 = w0.fma(x, a02); a12 = w1.fma(x, a12); a22 = w2.fma(x, a22); a32 = w3.fma(x, a32);
            x = FloatVector.fromArray(S, xs, x3 + i);
            a03 = w0.fma(x, a03); a13 = w1.fma(x, a13); a23 = w2.fma(x, a23); a33 = w3.fma(x, a33);
        }
        // the accumulators leave through an array: this method is too large for C2 to inline the
        // lane sums, and a vector passed to a call that is not inlined is boxed
        a00.intoArray(sums, 0 * F); a01.intoArray(sums, 1 * F); a02.intoArray(sums, 2 * F); a03.intoArray(sums, 3 * F);
        a10.intoArray(sums, 4 * F); a11.intoArray(sums, 5 * F); a12.intoArray(sums, 6 * F); a13.intoArray(sums, 7 * F);
        a20.intoArray(sums, 8 * F); a21.intoArray(sums, 9 * F); a22.intoArray(sums, 10 * F); a23.intoArray(sums, 11 * F);
        a30.intoArray(sums, 12 * F); a31.intoArray(sums, 13 * F); a32.intoArray(sums, 14 * F); a33.intoArray(sums, 15 * F);
        Lanes.sums(sums, 0, 16, sums, 16 * F);
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                out[o + j * ldo + i] = tail(w, q0 + i * k, k, bound, xs, x0 + j * k, sums[16 * F + 4 * i + j]);
            }
        }
    }

    /** Four f32 weight rows from {@code q0} × one x row: one chain per weight row. */
    private static void f32Block1(float[] w, int q0, int k, float[] xs, int x0, float[] out, int o) {
        FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S), a2 = FloatVector.zero(S), a3 = FloatVector.zero(S);
        int q1 = q0 + k, q2 = q1 + k, q3 = q2 + k;
        int bound = S.loopBound(k);
        for (int i = 0; i < bound; i += F) {
            FloatVector x = FloatVector.fromArray(S, xs, x0 + i);
            a0 = FloatVector.fromArray(S, w, q0 + i).fma(x, a0);
            a1 = FloatVector.fromArray(S, w, q1 + i).fma(x, a1);
            a2 = FloatVector.fromArray(S, w, q2 + i).fma(x, a2);
            a3 = FloatVector.fromArray(S, w, q3 + i).fma(x, a3);
        }
        out[o] = tail(w, q0, k, bound, xs, x0, Lanes.sum(a0));
        out[o + 1] = tail(w, q1, k, bound, xs, x0, Lanes.sum(a1));
        out[o + 2] = tail(w, q2, k, bound, xs, x0, Lanes.sum(a2));
        out[o + 3] = tail(w, q3, k, bound, xs, x0, Lanes.sum(a3));
    }

    private static float tail(float[] w, int wo, int k, int bound, float[] x, int xo, float sum) {
        return bound == k ? sum : tailLoop(w, wo, k, bound, x, xo, sum);
    }

    private static float tailLoop(float[] w, int wo, int k, int bound, float[] x, int xo, float sum) {
        for (int i = bound; i < k; i++) sum += w[wo + i] * x[xo + i];
        return sum;
    }

    /** Scalar twin of {@link #bf16} (x in natural order): the test oracle. */
    public static void bf16Scalar(MemorySegment w, long wOff, long ldwBytes, int k, float[] x, int rows,
                                  int n0, int n1, float[] out, int outOff, int ldo) {
        for (int n = n0; n < n1; n++) {
            for (int m = 0; m < rows; m++) {
                float sum = 0;
                for (int i = 0; i < k; i++) sum += Floats.bf16ToFloat(w.get(I16, wOff + n * ldwBytes + 2L * i)) * x[m * k + i];
                out[outOff + m * ldo + n] = sum;
            }
        }
    }
}
