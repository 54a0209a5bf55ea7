package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.KeyScores;
import panamax.backend.java.kernel.MatVec;
import panamax.backend.java.kernel.ValueAccumulation;

/**
 * Fused scaled-dot-product attention with grouped-query heads. Work items are (row, kv head,
 * block of queries); each streams its kv head's keys once through the matrix-vector kernels for
 * every query row of the group (all query heads × the block), then its values once, one f32 row at
 * a time, into the rows' accumulators. Scores, masking and softmax stay in per-item f32 buffers.
 */
final class AttentionOps {
    private static final int QUERY_BLOCK = 32;

    private final JavaBackend backend;

    AttentionOps(JavaBackend backend) {
        this.backend = backend;
    }

    JavaTensor attention(JavaTensor q, JavaTensor k, JavaTensor v, double scale, AttentionMask mask) {
        if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) {
            throw new IllegalArgumentException("scaledDotProductAttention: expected rank-4 q, k, v, found " + q.shape + ", " + k.shape + ", " + v.shape);
        }
        int b = q.dims[0], hq = q.dims[1], tq = q.dims[2], d = q.dims[3];
        int hkv = k.dims[1], tk = k.dims[2], dv = v.dims[3];
        if (k.dims[0] != b || v.dims[0] != b || k.dims[3] != d || v.dims[1] != hkv || v.dims[2] != tk) {
            throw new IllegalArgumentException("scaledDotProductAttention: incompatible shapes q " + q.shape + ", k " + k.shape + ", v " + v.shape);
        }
        if (hkv == 0 || hq % hkv != 0) {
            throw new IllegalArgumentException("scaledDotProductAttention: query heads " + hq + " must be a multiple of kv heads " + hkv);
        }
        int group = hq / hkv;
        AttentionRows rowsOf = AttentionRows.of(mask, b, hq, tq, tk, scale);
        JavaTensor out = backend.allocate(new int[] {b, hq, tq, dv}, q.dtype);
        int qBlocks = (tq + QUERY_BLOCK - 1) / QUERY_BLOCK;
        int items = b * hkv * qBlocks;
        MemorySegment os = out.segment();
        int maxRows = group * Math.min(QUERY_BLOCK, tq);
        // buffers once per participating thread (AttentionRows.Buffers says why)
        backend.parallel.forRange(items, 1, () -> new Scratch(new AttentionRows.Buffers(maxRows, d, tk, dv), new float[maxRows * d],
                new float[KeyScores.scratchLength()]), (from, to, scratch) -> {
            AttentionRows.Buffers buf = scratch.buffers();
            for (int item = from; item < to; item++) {
                AttentionRows.Item it = AttentionRows.Item.of(item, QUERY_BLOCK, hkv, tq, group);
                int bi = it.b(), h = it.h(), i0 = it.i0(), block = it.block(), rows = it.rows();
                rowsOf.loadQueries(q, bi, h, group, i0, block, 0, rows, buf.row, buf.queries, buf.lo, buf.hi);
                long seen = AttentionRows.seenKeys(buf.lo, buf.hi, rows);
                if (seen != 0) scores(k, bi, h, buf.queries, scratch.arranged(), rows, d, AttentionRows.seenFrom(seen), AttentionRows.seenTo(seen), tk,
                        buf.scores, scratch.keyScratch());
                int first = tk;
                int last = -1;
                for (int r = 0; r < rows; r++) {
                    int head = h * group + r / block;
                    int i = i0 + r % block;
                    if (!rowsOf.softmax(buf.scores, r * tk, bi, head, i, r, buf.lo, buf.hi)) continue; // every key masked: zero output
                    first = Math.min(first, buf.lo[r]);
                    last = Math.max(last, buf.hi[r]);
                }
                long vBase = v.offset + bi * v.strides[0] + h * v.strides[1];
                if ((v.dtype == DType.F32 || v.dtype == DType.BF16) && v.strides[3] == 1 && ValueAccumulation.supports(dv)) {
                    accumulateBlocked(v, vBase, dv, buf.scores, tk, rows, buf.lo, buf.hi, first, last, buf.acc);
                } else {
                    accumulateRows(v, vBase, dv, buf.scores, tk, rows, buf.lo, buf.hi, first, last, buf.row, buf.acc);
                }
                for (int r = 0; r < rows; r++) {
                    int head = h * group + r / block;
                    int i = i0 + r % block;
                    long at = (((long) bi * hq + head) * tq + i) * dv;
                    System.arraycopy(buf.acc, r * dv, buf.row, 0, dv);
                    RowIo.store(os, q.dtype, at, 1, dv, buf.row);
                }
            }
        });
        return out;
    }

    /**
     * p·V in register blocks ({@link ValueAccumulation}) over f32 or bf16 rows of unit stride: each
     * row's weights are first zeroed where it does not attend, since the blocks run every row over
     * the same key range.
     */
    private static void accumulateBlocked(JavaTensor v, long vBase, int dv, float[] scores, int tk, int rows, int[] lo, int[] hi,
                                          int first, int last, float[] acc) {
        if (first > last) {
            Arrays.fill(acc, 0, rows * dv, 0f);
            return;
        }
        AttentionRows.zeroOutside(scores, tk, rows, lo, hi, first, last);
        long bytes = v.dtype.byteSize();
        if (v.dtype == DType.F32) {
            ValueAccumulation.accumulate(v.segment(), vBase * bytes, v.strides[2] * bytes, dv, scores, tk, rows, first, last, acc);
        } else {
            ValueAccumulation.accumulateBf16(v.segment(), vBase * bytes, v.strides[2] * bytes, dv, scores, tk, rows, first, last, acc);
        }
    }

    /** p·V one value row at a time ({@code MatVec.axpy} per attending row): any dtype and stride. */
    private static void accumulateRows(JavaTensor v, long vBase, int dv, float[] scores, int tk, int rows, int[] lo, int[] hi,
                                       int first, int last, float[] valueRow, float[] acc) {
        Arrays.fill(acc, 0, rows * dv, 0f);
        for (int j = first; j <= last; j++) {
            RowIo.load(v.segment(), v.dtype, vBase + j * v.strides[2], v.strides[3], dv, valueRow);
            for (int r = 0; r < rows; r++) {
                if (j < lo[r] || j > hi[r]) continue;
                float p = scores[r * tk + j];
                if (p != 0) MatVec.axpy(p, valueRow, 0, acc, r * dv, dv);
            }
        }
    }

    /**
     * {@code scores[r·tk + j] = q_r · k_j} for the kv head (b, h) and keys {@code [j0, j1)}: straight from the key storage
     * with {@link KeyScores} when keys are unit-stride along D (a block of keys stays in L1 for all query rows of the
     * group), else from f32 copies of the key rows. A key's score has the same bits in any range.
     */
    private static void scores(JavaTensor k, int b, int h, float[] queries, float[] arranged, int rows, int d, int j0, int j1, int tk,
                               float[] scores, float[] keyScratch) {
        long base = k.offset + b * k.strides[0] + h * k.strides[1];
        MemorySegment s = k.segment();
        if (k.strides[3] == 1 || d == 1) {
            long bytes = k.dtype.byteSize();
            switch (k.dtype) {
                case BF16 -> {
                    for (int r = 0; r < rows; r++) MatVec.interleaveForBf16(queries, r * d, d, arranged, r * d);
                    KeyScores.bf16(s, base * bytes, k.strides[2] * bytes, d, arranged, rows, j0, j1, scores, tk, keyScratch);
                    return;
                }
                case F32 -> {
                    KeyScores.f32(s, base * bytes, k.strides[2] * bytes, d, queries, rows, j0, j1, scores, tk, keyScratch);
                    return;
                }
                case F16 -> {
                    MatVec.f16(s, base * bytes, k.strides[2] * bytes, d, queries, rows, j0, j1, scores, 0, tk);
                    return;
                }
                default -> { }
            }
        }
        float[] key = new float[d];
        for (int j = j0; j < j1; j++) {
            RowIo.load(s, k.dtype, base + j * k.strides[2], k.strides[3], d, key);
            for (int r = 0; r < rows; r++) scores[r * tk + j] = MatVec.dot(queries, r * d, key, 0, d);
        }
    }

    /** One thread's buffers for one call: the rows' buffers, the queries arranged for the key kernel, its scratch. */
    private record Scratch(AttentionRows.Buffers buffers, float[] arranged, float[] keyScratch) {
    }
}
