package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.AttentionMask;
import panamax.backend.java.kernel.AffineScores;
import panamax.backend.java.kernel.AffineValues;
import panamax.backend.java.kernel.RowScales;

/**
 * Fused attention over an affine-quantized cache: work items are (row, kv head, block of queries),
 * as in {@link AttentionOps}; each takes its query rows four at a time (a GQA group at decode), scores
 * them against the kv head's key codes with {@link AffineScores}, applies mask and softmax in place
 * ({@link AttentionRows}), and sums the value codes with {@link AffineValues}. Scores stay in a per-item
 * f32 buffer; nothing is dequantized, and no tensor is made but the output.
 */
final class QuantizedAttention {
    private static final int QUERY_BLOCK = 32;
    private static final int ROWS = AffineScores.ROWS;

    private QuantizedAttention() {
    }

    /** True when the kernels serve these keys and values (2, 4 or 8 bits, rows of ≤ 512 codes, unit-stride words). */
    static boolean supports(QuantOps.Parts keys, QuantOps.Parts values) {
        return AffineScores.supports(keys.bits(), keys.cols(), keys.groupSize())
                && AffineValues.supports(values.bits(), values.cols(), values.groupSize())
                && unitWords(keys.packed()) && unitWords(values.packed());
    }

    private static boolean unitWords(JavaTensor packed) {
        return packed.strides[3] == 1 || packed.dims[3] == 1;
    }

    static JavaTensor run(JavaBackend backend, JavaTensor q, QuantOps.Parts keys, QuantOps.Parts values, double scale, AttentionMask mask) {
        int b = q.dims[0], hq = q.dims[1], tq = q.dims[2], d = q.dims[3];
        JavaTensor kp = keys.packed();
        JavaTensor vp = values.packed();
        int hkv = kp.dims[1], tk = kp.dims[2], dv = values.cols();
        int group = hq / hkv;
        AttentionRows rowsOf = AttentionRows.of(mask, b, hq, tq, tk, scale);
        JavaTensor out = backend.allocate(new int[] {b, hq, tq, dv}, q.dtype);
        int qBlocks = (tq + QUERY_BLOCK - 1) / QUERY_BLOCK;
        int items = b * hkv * qBlocks;
        MemorySegment os = out.segment();
        MemorySegment ks = kp.segment();
        MemorySegment vs = vp.segment();
        int vGroups = dv / values.groupSize();
        backend.parallel.forRange(items, 1, (from, to) -> {
            float[] queries = new float[ROWS * d];
            float[] scores = new float[ROWS * tk];
            float[] acc = new float[ROWS * dv];
            float[] biasAcc = new float[ROWS * vGroups];
            float[] row = new float[Math.max(d, dv)];
            int[] lo = new int[ROWS];
            int[] hi = new int[ROWS];
            for (int item = from; item < to; item++) {
                AttentionRows.Item it = AttentionRows.Item.of(item, QUERY_BLOCK, hkv, tq, group);
                int bi = it.b(), h = it.h(), i0 = it.i0(), block = it.block(), rows = it.rows();
                long kBase = (kp.offset + bi * kp.strides[0] + h * kp.strides[1]) * 4;
                long vBase = (vp.offset + bi * vp.strides[0] + h * vp.strides[1]) * 4;
                RowScales kParams = keys.rowScales(bi, h);
                RowScales vParams = values.rowScales(bi, h);
                for (int r0 = 0; r0 < rows; r0 += ROWS) {
                    int m = Math.min(ROWS, rows - r0);
                    rowsOf.loadQueries(q, bi, h, group, i0, block, r0, m, row, queries, lo, hi);
                    float[][] arranged = AffineScores.arrange(queries, m, d, keys.bits(), keys.groupSize());
                    AffineScores.scores(ks, kBase, kp.strides[2] * 4, keys.bits(), keys.groupSize(), d, kParams, arranged, m, 0, tk, scores, tk);
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
                    Arrays.fill(biasAcc, 0f);
                    if (first <= last) {
                        AttentionRows.zeroOutside(scores, tk, m, lo, hi, first, last);
                        AffineValues.accumulate(vs, vBase, vp.strides[2] * 4, values.bits(), values.groupSize(), dv, vParams, scores, m, tk,
                                first, last + 1, acc, biasAcc);
                    }
                    for (int r = 0; r < m; r++) {
                        int head = h * group + (r0 + r) / block;
                        int i = i0 + (r0 + r) % block;
                        if (hi[r] < lo[r]) Arrays.fill(row, 0, dv, 0f);
                        else AffineValues.finish(acc, biasAcc, r, values.bits(), values.groupSize(), dv, row, 0);
                        RowIo.store(os, q.dtype, (((long) bi * hq + head) * tq + i) * dv, 1, dv, row);
                    }
                }
            }
        });
        return out;
    }
}
