package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import panamax.api.tensor.AttentionMask;

/**
 * The loop the fused attention kernels over encoded caches share ({@link QuantizedAttention},
 * {@link CodebookAttention}). Work items are (row, kv head, block of queries), as in
 * {@link AttentionOps}; each takes its query rows {@link #ROWS} at a time (a GQA group at decode),
 * has the cache's {@link Kernels} score them, applies mask and softmax in place
 * ({@link AttentionRows}), has the kernels sum the values, and stores the rows. Scores stay in a
 * per-thread f32 buffer; no tensor is made but the output.
 */
final class FusedAttention {
    /** Query rows per kernel call: the row count of the score and value kernels (CodeColumns.ROWS, CodeRows.ROWS, ...). */
    static final int ROWS = 4;
    private static final int QUERY_BLOCK = 32;

    private FusedAttention() {
    }

    /** One thread's kernels over one cache (they may hold scratch: made once per thread). */
    interface Kernels {
        /** Selects kv head h of row b for the calls that follow. */
        void head(int b, int h);

        /** {@code scores[r·tk + t] = q_r·k_t} for {@code r < m}; the query rows past m are zero. */
        void scores(float[] queries, int m, float[] scores);

        /**
         * The weighted value sums of rows {@code r < m} over tokens {@code [first, last]} into the
         * zeroed {@code acc} ({@link #ROWS}·Dv, in the kernels' own order); weights outside a row's
         * keys are zero.
         */
        void values(float[] scores, int m, int first, int last, float[] acc);

        /** Row r of {@code acc}, after {@link #values}, in natural order into {@code row}. */
        void row(float[] acc, int r, float[] row);
    }

    /** {@code softmax(q·kᵀ·scale + mask)·v} over a cache of {@code hkv} heads × {@code tk} tokens with values of dv columns. */
    static JavaTensor run(JavaBackend backend, JavaTensor q, int hkv, int tk, int dv, double scale, AttentionMask mask,
                          Supplier<Kernels> kernels) {
        int b = q.dims[0], hq = q.dims[1], tq = q.dims[2], d = q.dims[3];
        int group = hq / hkv;
        AttentionRows rowsOf = AttentionRows.of(mask, b, hq, tq, tk, scale);
        JavaTensor out = backend.allocate(new int[] {b, hq, tq, dv}, q.dtype);
        int items = b * hkv * ((tq + QUERY_BLOCK - 1) / QUERY_BLOCK);
        MemorySegment os = out.segment();
        // kernels and scratch once per participating thread, not per chunk: a call is cut into up to 4·threads
        // chunks, and each Kernels allocates per-token arrays and code tables (at 64 tokens that was most of a call)
        Map<Thread, Scratch> perThread = new ConcurrentHashMap<>();
        backend.parallel.forRange(items, 1, (from, to) -> {
            Scratch scratch = perThread.computeIfAbsent(Thread.currentThread(), t -> new Scratch(kernels.get(), d, tk, dv));
            Kernels k = scratch.kernels;
            float[] queries = scratch.queries;
            float[] scores = scratch.scores;
            float[] acc = scratch.acc;
            float[] row = scratch.row;
            int[] lo = scratch.lo;
            int[] hi = scratch.hi;
            for (int item = from; item < to; item++) {
                AttentionRows.Item it = AttentionRows.Item.of(item, QUERY_BLOCK, hkv, tq, group);
                int bi = it.b(), h = it.h(), i0 = it.i0(), block = it.block();
                k.head(bi, h);
                for (int r0 = 0; r0 < it.rows(); r0 += ROWS) {
                    int m = Math.min(ROWS, it.rows() - r0);
                    Arrays.fill(queries, 0f);
                    rowsOf.loadQueries(q, bi, h, group, i0, block, r0, m, row, queries, lo, hi);
                    k.scores(queries, m, scores);
                    int first = tk;
                    int last = -1;
                    for (int r = 0; r < m; r++) {
                        int head = h * group + (r0 + r) / block;
                        int i = i0 + (r0 + r) % block;
                        if (!rowsOf.softmax(scores, r * tk, bi, head, i, r, lo, hi)) continue; // every key masked: zero output
                        first = Math.min(first, lo[r]);
                        last = Math.max(last, hi[r]);
                    }
                    Arrays.fill(acc, 0f);
                    if (first <= last) {
                        AttentionRows.zeroOutside(scores, tk, m, lo, hi, first, last);
                        k.values(scores, m, first, last, acc);
                    }
                    for (int r = 0; r < m; r++) {
                        int head = h * group + (r0 + r) / block;
                        int i = i0 + (r0 + r) % block;
                        if (hi[r] < lo[r]) Arrays.fill(row, 0, dv, 0f);
                        else k.row(acc, r, row);
                        RowIo.store(os, q.dtype, (((long) bi * hq + head) * tq + i) * dv, 1, dv, row);
                    }
                }
            }
        });
        return out;
    }

    /** One thread's kernels and buffers for one call. */
    private static final class Scratch {
        final Kernels kernels;
        final float[] queries;
        final float[] scores;
        final float[] acc;
        final float[] row;
        final int[] lo = new int[ROWS];
        final int[] hi = new int[ROWS];

        Scratch(Kernels kernels, int d, int tk, int dv) {
            this.kernels = kernels;
            this.queries = new float[ROWS * d];
            this.scores = new float[ROWS * tk];
            this.acc = new float[ROWS * dv];
            this.row = new float[Math.max(d, dv)];
        }
    }
}
