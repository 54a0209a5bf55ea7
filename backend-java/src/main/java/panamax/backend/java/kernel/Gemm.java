package panamax.backend.java.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Blocked f32 matrix product {@code C[M, N] = A[M, K] · B[K, N]}. A is packed once into
 * MR-row panels; each task packs KC×NR panels of B (converting from their storage) into a buffer
 * that stays in L1, then sweeps the MR×NR register-tile kernel down its rows. Tasks split the
 * output into row chunks × column groups on the backend's pool. C is row-major f32 on the heap.
 */
public final class Gemm {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int F = S.length();
    /** Rows of the register tile. */
    static final int MR = 6;
    /** Columns of the register tile: two vectors. */
    static final int NR = 2 * F;
    private static final int KC = 256;
    private static final int PANELS_PER_TASK = 4;

    private Gemm() {
    }

    /**
     * @param a   A row-major, {@code a[i·lda + k]}
     * @param b   the panels of B
     * @param c   output, {@code c[i·ldc + j]}, overwritten
     */
    public static void multiply(Parallel parallel, int m, int n, int k, float[] a, int lda, BPanelSource b, float[] c, int ldc) {
        if (m == 0 || n == 0) return;
        if (k == 0) {
            for (int i = 0; i < m; i++) java.util.Arrays.fill(c, i * ldc, i * ldc + n, 0f);
            return;
        }
        int mPad = (m + MR - 1) / MR * MR;
        float[] ap = packA(a, lda, m, mPad, k);
        int panels = (n + NR - 1) / NR;
        int threads = parallel.threads();
        // every packed B panel should serve as many rows as possible: split rows only when there
        // are too few column panels to keep every worker busy
        int panelsPerTask = Math.max(1, Math.min(PANELS_PER_TASK, panels / (2 * threads)));
        int panelGroups = (panels + panelsPerTask - 1) / panelsPerTask;
        int rowChunks = panelGroups >= 2 * threads ? 1 : Math.max(1, Math.min((m + MR - 1) / MR, 2 * threads / panelGroups));
        int rowChunk = ((m + rowChunks - 1) / rowChunks + MR - 1) / MR * MR;
        rowChunks = (m + rowChunk - 1) / rowChunk;
        int tasks = rowChunks * panelGroups;
        long flopsPerTask = 2L * Math.min(m, rowChunk) * NR * panelsPerTask * k;
        int grain = flopsPerTask > 4_000_000 ? 1 : (int) Math.max(1, 4_000_000 / flopsPerTask);
        int chunks = rowChunks;
        int perTask = panelsPerTask;
        parallel.forRange(tasks, grain, (from, to) -> {
            float[] bp = new float[KC * NR];
            float[] tile = new float[MR * NR];
            for (int t = from; t < to; t++) {
                int rc = t % chunks;
                int pg = t / chunks;
                int i0 = rc * rowChunk;
                int i1 = Math.min(m, i0 + rowChunk);
                int p1 = Math.min(panels, (pg + 1) * perTask);
                for (int k0 = 0; k0 < k; k0 += KC) {
                    int kc = Math.min(KC, k - k0);
                    for (int p = pg * perTask; p < p1; p++) {
                        int j0 = p * NR;
                        int nr = Math.min(NR, n - j0);
                        b.pack(k0, kc, j0, nr, bp, 0, NR);
                        for (int i = i0; i < i1; i += MR) {
                            int aOff = k0 * mPad + i * kc;
                            kernel(ap, aOff, bp, kc, c, i * ldc + j0, ldc, k0 > 0, Math.min(MR, m - i), nr, tile);
                        }
                    }
                }
            }
        });
    }

    /** Packs A into {@code [k-block][row panel][kk][MR]} with zero rows past m. */
    private static float[] packA(float[] a, int lda, int m, int mPad, int k) {
        float[] ap = new float[mPad * k];
        for (int k0 = 0; k0 < k; k0 += KC) {
            int kc = Math.min(KC, k - k0);
            for (int i = 0; i < m; i++) {
                int panelBase = k0 * mPad + (i / MR) * MR * kc + i % MR;
                int src = i * lda + k0;
                for (int kk = 0; kk < kc; kk++) ap[panelBase + kk * MR] = a[src + kk];
            }
        }
        return ap;
    }

    /**
     * The MR×NR register tile: C[rows, cols] (+)= Ap[kc, MR]ᵀ · Bp[kc, NR]. Accumulating (k0 > 0), the
     * tile starts from C's values and continues their fused multiply-add chains, so each element is one
     * chain over the whole of k in order: the sum {@code MatVec.axpy} forms row by row, and the same
     * whatever the row count or the tile an element falls in.
     */
    private static void kernel(float[] ap, int aOff, float[] bp, int kc, float[] c, int cOff, int ldc,
                               boolean accumulate, int rows, int cols, float[] tile) {
        boolean full = rows == MR && cols == NR;
        float[] src = c;
        int at = cOff;
        int ld = ldc;
        if (!full) {
            // a partial tile goes through the scratch tile, padded with zeros
            java.util.Arrays.fill(tile, 0f);
            if (accumulate) {
                for (int r = 0; r < rows; r++) System.arraycopy(c, cOff + r * ldc, tile, r * NR, cols);
            }
            src = tile;
            at = 0;
            ld = NR;
        }
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
        if (accumulate || !full) {
            c00 = FloatVector.fromArray(S, src, at);
            c01 = FloatVector.fromArray(S, src, at + F);
            c10 = FloatVector.fromArray(S, src, at + ld);
            c11 = FloatVector.fromArray(S, src, at + ld + F);
            c20 = FloatVector.fromArray(S, src, at + 2 * ld);
            c21 = FloatVector.fromArray(S, src, at + 2 * ld + F);
            c30 = FloatVector.fromArray(S, src, at + 3 * ld);
            c31 = FloatVector.fromArray(S, src, at + 3 * ld + F);
            c40 = FloatVector.fromArray(S, src, at + 4 * ld);
            c41 = FloatVector.fromArray(S, src, at + 4 * ld + F);
            c50 = FloatVector.fromArray(S, src, at + 5 * ld);
            c51 = FloatVector.fromArray(S, src, at + 5 * ld + F);
        } else {
            c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = FloatVector.zero(S);
        }
        for (int kk = 0; kk < kc; kk++) {
            FloatVector b0 = FloatVector.fromArray(S, bp, kk * NR);
            FloatVector b1 = FloatVector.fromArray(S, bp, kk * NR + F);
            int ai = aOff + kk * MR;
            FloatVector a0 = FloatVector.broadcast(S, ap[ai]);
            c00 = b0.fma(a0, c00);
            c01 = b1.fma(a0, c01);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = b0.fma(a1, c10);
            c11 = b1.fma(a1, c11);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = b0.fma(a2, c20);
            c21 = b1.fma(a2, c21);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = b0.fma(a3, c30);
            c31 = b1.fma(a3, c31);
            FloatVector a4 = FloatVector.broadcast(S, ap[ai + 4]);
            c40 = b0.fma(a4, c40);
            c41 = b1.fma(a4, c41);
            FloatVector a5 = FloatVector.broadcast(S, ap[ai + 5]);
            c50 = b0.fma(a5, c50);
            c51 = b1.fma(a5, c51);
        }
        c00.intoArray(src, at);
        c01.intoArray(src, at + F);
        c10.intoArray(src, at + ld);
        c11.intoArray(src, at + ld + F);
        c20.intoArray(src, at + 2 * ld);
        c21.intoArray(src, at + 2 * ld + F);
        c30.intoArray(src, at + 3 * ld);
        c31.intoArray(src, at + 3 * ld + F);
        c40.intoArray(src, at + 4 * ld);
        c41.intoArray(src, at + 4 * ld + F);
        c50.intoArray(src, at + 5 * ld);
        c51.intoArray(src, at + 5 * ld + F);
        if (!full) {
            for (int r = 0; r < rows; r++) System.arraycopy(tile, r * NR, c, cOff + r * ldc, cols);
        }
    }

    /** Scalar twin of {@link #multiply}: the test oracle. */
    public static void multiplyScalar(int m, int n, int k, float[] a, int lda, BPanelSource b, float[] c, int ldc) {
        float[] col = new float[k];
        for (int j = 0; j < n; j++) {
            b.pack(0, k, j, 1, col, 0, 1);
            for (int i = 0; i < m; i++) {
                float s = 0;
                for (int kk = 0; kk < k; kk++) s += a[i * lda + kk] * col[kk];
                c[i * ldc + j] = s;
            }
        }
    }
}
