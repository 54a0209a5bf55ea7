package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.Supplier;
import panamax.api.tensor.AttentionMask;

/**
 * The loop the fused attention kernels over encoded caches share ({@link QuantizedAttention},
 * {@link CodebookAttention}). Work items are (row, kv head, block of queries), as in
 * {@link AttentionOps}; each takes its query rows {@link #ROWS} at a time (a GQA group at decode),
 * has the cache's {@link Kernels} score them, applies mask and softmax in place
 * ({@link AttentionRows}), has the kernels sum the values, and stores the rows. The value sums of rows
 * that start at the same first key (a decode step's heads; full attention) go in one kernel call from
 * that key; rows with different first keys (sliding windows in a prefill) go one at a time, so a row's
 * sums never depend on the rows beside it. Scores stay in a
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

        /**
         * {@code scores[r·tk + t] = q_r·k_t} for {@code r < m} and keys {@code [j0, j1)}, each key's score the same bits
         * in any range; the query rows past m are zero.
         */
        void scores(float[] queries, int m, int j0, int j1, float[] scores);

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
        // kernels and buffers once per participating thread: each Kernels also allocates per-token arrays and code tables
        backend.parallel.forRange(items, 1, () -> new Scratch(kernels.get(), new AttentionRows.Buffers(ROWS, d, tk, dv), new float[tk],
                new float[ROWS * dv]), (from, to, scratch) -> {
            Kernels k = scratch.kernels();
            AttentionRows.Buffers buf = scratch.buffers();
            for (int item = from; item < to; item++) {
                AttentionRows.Item it = AttentionRows.Item.of(item, QUERY_BLOCK, hkv, tq, group);
                int bi = it.b(), h = it.h(), i0 = it.i0(), block = it.block();
                k.head(bi, h);
                for (int r0 = 0; r0 < it.rows(); r0 += ROWS) {
                    int m = Math.min(ROWS, it.rows() - r0);
                    Arrays.fill(buf.queries, 0f);
                    rowsOf.loadQueries(q, bi, h, group, i0, block, r0, m, buf.row, buf.queries, buf.lo, buf.hi);
                    long seen = AttentionRows.seenKeys(buf.lo, buf.hi, m);
                    if (seen != 0) k.scores(buf.queries, m, AttentionRows.seenFrom(seen), AttentionRows.seenTo(seen), buf.scores);
                    int first = tk;
                    int last = -1;
                    for (int r = 0; r < m; r++) {
                        int head = h * group + (r0 + r) / block;
                        int i = i0 + (r0 + r) % block;
                        if (!rowsOf.softmax(buf.scores, r * tk, bi, head, i, r, buf.lo, buf.hi)) continue; // every key masked: zero output
                        first = Math.min(first, buf.lo[r]);
                        last = Math.max(last, buf.hi[r]);
                    }
                    boolean shared = true;
                    for (int r = 0; r < m; r++) shared &= buf.hi[r] < buf.lo[r] || buf.lo[r] == first;
                    if (shared) {
                        Arrays.fill(buf.acc, 0f);
                        if (first <= last) {
                            AttentionRows.zeroOutside(buf.scores, tk, m, buf.lo, buf.hi, first, last);
                            k.values(buf.scores, m, first, last, buf.acc);
                        }
                    }
                    for (int r = 0; r < m; r++) {
                        int head = h * group + (r0 + r) / block;
                        int i = i0 + (r0 + r) % block;
                        if (buf.hi[r] < buf.lo[r]) {
                            Arrays.fill(buf.row, 0, dv, 0f);
                        } else if (shared) {
                            k.row(buf.acc, r, buf.row);
                        } else {
                            // rows whose first keys differ (a window's queries of several tokens): a kernel may group
                            // its token sums from the first key it is given, so each row goes alone from its own first
                            // key, as it does when it is the only row
                            System.arraycopy(buf.scores, r * tk + buf.lo[r], scratch.single(), buf.lo[r], buf.hi[r] - buf.lo[r] + 1);
                            Arrays.fill(scratch.singleAcc(), 0f);
                            k.values(scratch.single(), 1, buf.lo[r], buf.hi[r], scratch.singleAcc());
                            k.row(scratch.singleAcc(), 0, buf.row);
                        }
                        RowIo.store(os, q.dtype, (((long) bi * hq + head) * tq + i) * dv, 1, dv, buf.row);
                    }
                }
            }
        });
        return out;
    }

    /** One thread's kernels and buffers for one call, and the scores and sums of one row taken alone. */
    private record Scratch(Kernels kernels, AttentionRows.Buffers buffers, float[] single, float[] singleAcc) {
    }
}
