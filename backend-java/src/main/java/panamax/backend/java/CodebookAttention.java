package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.AttentionMask;
import panamax.backend.java.kernel.CodebookScores;
import panamax.backend.java.kernel.CodebookValues;
import panamax.backend.java.kernel.CodebookVectors;

/**
 * Fused attention over codebook keys and values (TurboQuant's cache, in its rotated domain), shaped
 * like {@link QuantizedAttention}: work items are (row, kv head, block of queries); query rows go
 * four at a time; scores come from {@link CodebookScores} (keys in lanes, times each key's norm),
 * mask and softmax from {@link AttentionRows}, and {@code Σ p·‖v‖·codebook[code]} from
 * {@link CodebookValues} (values in whole 16-word chunks) or {@link CodebookVectors#accumulatePacked}
 * in blocks of 32 tokens. Nothing is decoded into a tensor.
 */
final class CodebookAttention {
    private static final int QUERY_BLOCK = 32;
    private static final int ROWS = CodebookScores.ROWS;
    private static final int TOKENS = CodebookVectors.TOKEN_BLOCK;

    private CodebookAttention() {
    }

    /** The codes of one side: words, per-token scales (norms), table. */
    record Side(JavaTensor packed, JavaTensor scales, int cols, int bits, CodebookVectors.Table table) {
        long base(int b, int h) {
            return (packed.offset + b * packed.strides[0] + h * packed.strides[1]) * 4;
        }

        long rowBytes() {
            return packed.strides[2] * 4;
        }

        /** The row scales of matrix [b, h] ({@code tk} of them; ones without scales). */
        void scales(int b, int h, int tk, float[] dst) {
            if (scales == null) {
                Arrays.fill(dst, 0, tk, 1f);
                return;
            }
            RowIo.load(scales.segment(), scales.dtype, scales.offset + b * scales.strides[0] + h * scales.strides[1], scales.strides[2], tk, dst);
        }
    }

    /** True when the kernels serve these keys and values (2/4-bit keys of 8 or 16k words, values decoded from their words). */
    static boolean supports(Side keys, Side values) {
        return keys.table.bits() != null && CodebookScores.supports(keys.bits, keys.cols)
                && CodebookVectors.decodesDirectly(values.table, values.bits, values.cols)
                && (keys.packed.strides[3] == 1 || keys.packed.dims[3] == 1) && (values.packed.strides[3] == 1 || values.packed.dims[3] == 1);
    }

    static JavaTensor run(JavaBackend backend, JavaTensor q, Side keys, Side values, double scale, AttentionMask mask) {
        int b = q.dims[0], hq = q.dims[1], tq = q.dims[2], d = q.dims[3];
        int hkv = keys.packed.dims[1], tk = keys.packed.dims[2], dv = values.cols;
        int group = hq / hkv;
        AttentionRows rowsOf = AttentionRows.of(mask, b, hq, tq, tk, scale);
        JavaTensor out = backend.allocate(new int[] {b, hq, tq, dv}, q.dtype);
        int qBlocks = (tq + QUERY_BLOCK - 1) / QUERY_BLOCK;
        int items = b * hkv * qBlocks;
        MemorySegment os = out.segment();
        MemorySegment ks = keys.packed.segment();
        MemorySegment vs = values.packed.segment();
        int[] bookBits = new int[16];
        float[] book = keys.table.book();
        for (int i = 0; i < book.length; i++) bookBits[i] = Float.floatToRawIntBits(book[i]);
        // values of whole 16-word chunks (4-bit at head dim 128) or back-to-back 8-word rows (2-bit) take the
        // register-blocked kernel, in its own order
        boolean arrangedValues = values.table.bits() != null && CodebookValues.supports(values.bits, dv, values.rowBytes());
        int[] valueBookBits = new int[16];
        for (int i = 0; i < values.table.book().length && arrangedValues; i++) valueBookBits[i] = Float.floatToRawIntBits(values.table.book()[i]);
        backend.parallel.forRange(items, 1, (from, to) -> {
            float[] queries = new float[ROWS * d];
            float[] scores = new float[ROWS * tk];
            float[] keyNorms = new float[tk];
            float[] valueNorms = new float[tk];
            float[] acc = new float[ROWS * dv];
            float[] weights = new float[ROWS * TOKENS];
            long[] rowBytes = new long[TOKENS];
            float[] row = new float[Math.max(d, dv)];
            int[] lo = new int[ROWS];
            int[] hi = new int[ROWS];
            for (int item = from; item < to; item++) {
                AttentionRows.Item it = AttentionRows.Item.of(item, QUERY_BLOCK, hkv, tq, group);
                int bi = it.b(), h = it.h(), i0 = it.i0(), block = it.block(), rows = it.rows();
                keys.scales(bi, h, tk, keyNorms);
                values.scales(bi, h, tk, valueNorms);
                long kBase = keys.base(bi, h);
                long vBase = values.base(bi, h);
                for (int r0 = 0; r0 < rows; r0 += ROWS) {
                    int m = Math.min(ROWS, rows - r0);
                    Arrays.fill(queries, 0f); // rows past m score as zeros
                    rowsOf.loadQueries(q, bi, h, group, i0, block, r0, m, row, queries, lo, hi);
                    CodebookScores.scores(ks, kBase, keys.rowBytes(), keys.bits, d, bookBits, keyNorms, queries, m, 0, tk, scores, 0, tk);
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
                    if (first <= last && arrangedValues) {
                        AttentionRows.zeroOutside(scores, tk, m, lo, hi, first, last);
                        CodebookValues.accumulate(vs, vBase, values.rowBytes(), values.bits, dv, valueBookBits, valueNorms, scores, m, tk, first,
                                last + 1, acc);
                    } else if (first <= last) {
                        AttentionRows.zeroOutside(scores, tk, m, lo, hi, first, last);
                        for (int t0 = first; t0 <= last; t0 += TOKENS) {
                            int count = Math.min(TOKENS, last + 1 - t0);
                            for (int t = 0; t < count; t++) rowBytes[t] = vBase + (t0 + t) * values.rowBytes();
                            Arrays.fill(weights, 0f);
                            for (int r = 0; r < m; r++) {
                                for (int t = 0; t < count; t++) weights[r * TOKENS + t] = scores[r * tk + t0 + t] * valueNorms[t0 + t];
                            }
                            CodebookVectors.accumulatePacked(values.table, vs, rowBytes, count, values.bits, dv, weights, acc, 0);
                        }
                    }
                    for (int r = 0; r < m; r++) {
                        int head = h * group + (r0 + r) / block;
                        int i = i0 + (r0 + r) % block;
                        if (hi[r] < lo[r]) Arrays.fill(row, 0, dv, 0f);
                        else if (arrangedValues) CodebookValues.unarrange(acc, r * dv, dv, values.bits, row, 0);
                        else System.arraycopy(acc, r * dv, row, 0, dv);
                        RowIo.store(os, q.dtype, (((long) bi * hq + head) * tq + i) * dv, 1, dv, row);
                    }
                }
            }
        });
        return out;
    }
}
