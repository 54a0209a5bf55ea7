package panamax.backend.java.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Attention's two products over a small block of decoded f32 key or value rows (a few KiB, in L1),
 * with the elements of every row in one fixed order (any order, as long as the queries and the value
 * sums use it too; {@link AffineLaneDecoder}'s lane order): scores of query rows against the keys,
 * and value sums of up to four rows. A key's score is its own chain of FMAs and a fixed lane sum, so
 * it does not depend on the block or the keys beside it; a value sum is one FMA chain per element in
 * token order, carried through the accumulator array from block to block, so it does not depend on
 * where the blocks split. Stateless; thread-safe; callers own the arrays.
 */
public final class LaneBlockProducts {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int F = S.length();

    private LaneBlockProducts() {
    }

    /** True for rows of {@code d} floats that split into pairs of vectors. */
    public static boolean supports(int d) {
        return d > 0 && d % (2 * F) == 0;
    }

    /** Floats of scratch {@link #scores} needs. */
    public static int scratchLength() {
        return 2 * F * F;
    }

    /**
     * {@code c[cOff + j] = Σ_e q[qOff + e]·k[j·d + e]} for keys {@code j < n}: keys are taken
     * {@code F} at a time ({@code k} must hold {@code ⌈n / F⌉·F} rows; the extra rows' sums are
     * dropped).
     */
    public static void scores(float[] k, int n, int d, float[] q, int qOff, float[] c, int cOff, float[] scratch) {
        if (d == 8 * F) {
            scoresOfEight(k, n, q, qOff, c, cOff, scratch);
            return;
        }
        FloatVector zero = FloatVector.zero(S);
        for (int j0 = 0; j0 < n; j0 += F) {
            for (int j = 0; j < F; j++) {
                int o = (j0 + j) * d;
                FloatVector a0 = zero;
                FloatVector a1 = zero;
                for (int e = 0; e < d; e += 2 * F) {
                    a0 = FloatVector.fromArray(S, k, o + e).fma(FloatVector.fromArray(S, q, qOff + e), a0);
                    a1 = FloatVector.fromArray(S, k, o + e + F).fma(FloatVector.fromArray(S, q, qOff + e + F), a1);
                }
                a0.add(a1).intoArray(scratch, j * F);
            }
            sums(n, c, cOff, scratch, j0);
        }
    }

    /**
     * Rows of eight vectors (head dim 64 on eight lanes, 128 on sixteen): the query stays in registers
     * and each key is straight-line code. The same two chains and sum as the general loop, so the
     * scores are the same bits.
     */
    private static void scoresOfEight(float[] k, int n, float[] q, int qOff, float[] c, int cOff, float[] scratch) {
        FloatVector q0 = FloatVector.fromArray(S, q, qOff), q1 = FloatVector.fromArray(S, q, qOff + F);
        FloatVector q2 = FloatVector.fromArray(S, q, qOff + 2 * F), q3 = FloatVector.fromArray(S, q, qOff + 3 * F);
        FloatVector q4 = FloatVector.fromArray(S, q, qOff + 4 * F), q5 = FloatVector.fromArray(S, q, qOff + 5 * F);
        FloatVector q6 = FloatVector.fromArray(S, q, qOff + 6 * F), q7 = FloatVector.fromArray(S, q, qOff + 7 * F);
        FloatVector zero = FloatVector.zero(S);
        for (int j0 = 0; j0 < n; j0 += F) {
            for (int j = 0; j < F; j++) {
                int o = (j0 + j) * 8 * F;
                FloatVector a0 = FloatVector.fromArray(S, k, o).fma(q0, zero);
                FloatVector a1 = FloatVector.fromArray(S, k, o + F).fma(q1, zero);
                a0 = FloatVector.fromArray(S, k, o + 2 * F).fma(q2, a0);
                a1 = FloatVector.fromArray(S, k, o + 3 * F).fma(q3, a1);
                a0 = FloatVector.fromArray(S, k, o + 4 * F).fma(q4, a0);
                a1 = FloatVector.fromArray(S, k, o + 5 * F).fma(q5, a1);
                a0 = FloatVector.fromArray(S, k, o + 6 * F).fma(q6, a0);
                a1 = FloatVector.fromArray(S, k, o + 7 * F).fma(q7, a1);
                a0.add(a1).intoArray(scratch, j * F);
            }
            sums(n, c, cOff, scratch, j0);
        }
    }

    /** The lane sums of the F keys from j0 into {@code c[cOff + j0 ..]}, only those below n. */
    private static void sums(int n, float[] c, int cOff, float[] scratch, int j0) {
        int count = Math.min(F, n - j0);
        if (count == F) {
            Lanes.sums(scratch, 0, F, c, cOff + j0);
        } else {
            Lanes.sums(scratch, 0, F, scratch, F * F);
            System.arraycopy(scratch, F * F, c, cOff + j0, count);
        }
    }

    /**
     * Adds {@code Σ_{j<n} p[pOff_r + j]·v[j·d + e]} to {@code acc[r·d + e]} for rows {@code r < rows}
     * (at most four), {@code pOff_r = pOff + r·ldp}: per element one FMA chain in key order, started
     * from what acc holds.
     */
    public static void accumulate(float[] v, int n, int d, float[] p, int pOff, int ldp, int rows, float[] acc) {
        // a block of fewer than four rows repeats its first row in the spare slots and drops their sums
        int p0 = pOff, p1 = pOff + (rows > 1 ? ldp : 0), p2 = pOff + (rows > 2 ? 2 * ldp : 0), p3 = pOff + (rows > 3 ? 3 * ldp : 0);
        int o1 = rows > 1 ? d : 0, o2 = rows > 2 ? 2 * d : 0, o3 = rows > 3 ? 3 * d : 0;
        for (int e = 0; e < d; e += 2 * F) {
            FloatVector a00 = FloatVector.fromArray(S, acc, e), a01 = FloatVector.fromArray(S, acc, e + F);
            FloatVector a10 = FloatVector.fromArray(S, acc, o1 + e), a11 = FloatVector.fromArray(S, acc, o1 + e + F);
            FloatVector a20 = FloatVector.fromArray(S, acc, o2 + e), a21 = FloatVector.fromArray(S, acc, o2 + e + F);
            FloatVector a30 = FloatVector.fromArray(S, acc, o3 + e), a31 = FloatVector.fromArray(S, acc, o3 + e + F);
            for (int j = 0; j < n; j++) {
                int at = j * d + e;
                FloatVector x0 = FloatVector.fromArray(S, v, at);
                FloatVector x1 = FloatVector.fromArray(S, v, at + F);
                FloatVector w = FloatVector.broadcast(S, p[p0 + j]);
                a00 = x0.fma(w, a00);
                a01 = x1.fma(w, a01);
                w = FloatVector.broadcast(S, p[p1 + j]);
                a10 = x0.fma(w, a10);
                a11 = x1.fma(w, a11);
                w = FloatVector.broadcast(S, p[p2 + j]);
                a20 = x0.fma(w, a20);
                a21 = x1.fma(w, a21);
                w = FloatVector.broadcast(S, p[p3 + j]);
                a30 = x0.fma(w, a30);
                a31 = x1.fma(w, a31);
            }
            if (rows > 3) {
                a30.intoArray(acc, o3 + e);
                a31.intoArray(acc, o3 + e + F);
            }
            if (rows > 2) {
                a20.intoArray(acc, o2 + e);
                a21.intoArray(acc, o2 + e + F);
            }
            if (rows > 1) {
                a10.intoArray(acc, o1 + e);
                a11.intoArray(acc, o1 + e + F);
            }
            a00.intoArray(acc, e);
            a01.intoArray(acc, e + F);
        }
    }
}
