package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.VectorMath;

/**
 * The per-query-row half of attention that the dense and the quantized kernels share: which keys a
 * query token sees under the mask, its scores scaled and masked, and their softmax in place. Built
 * once per call; immutable, so work items on several threads use one instance.
 */
final class AttentionRows {
    private final int tq;
    private final int tk;
    private final float scale;
    private final boolean causal;
    private final int window;
    private final MaskReader maskReader;

    private AttentionRows(int tq, int tk, float scale, boolean causal, int window, MaskReader maskReader) {
        this.tq = tq;
        this.tk = tk;
        this.scale = scale;
        this.causal = causal;
        this.window = window;
        this.maskReader = maskReader;
    }

    /** For q [b, hq, tq, ·] against tk keys; an explicit mask is read broadcast to [b, hq, tq, tk]. */
    static AttentionRows of(AttentionMask mask, int b, int hq, int tq, int tk, double scale) {
        int window = mask instanceof AttentionMask.Causal c ? c.window() : 0;
        return new AttentionRows(tq, tk, (float) scale, mask instanceof AttentionMask.Causal, window, MaskReader.of(mask, b, hq, tq, tk));
    }

    /**
     * Rows {@code [r0, r0 + m)} of work item (b, kv head h, query block from i0 of {@code block} tokens):
     * row r is query head {@code h·group + r / block}, token {@code i0 + r % block}. Loads them as f32
     * into {@code queries[(r − r0)·d ..]} (through the scratch {@code row}) and sets their key bounds at
     * index {@code r − r0}.
     */
    void loadQueries(JavaTensor q, int b, int h, int group, int i0, int block, int r0, int m, float[] row, float[] queries,
                     int[] lo, int[] hi) {
        int d = q.dims[3];
        for (int r = 0; r < m; r++) {
            int head = h * group + (r0 + r) / block;
            int i = i0 + (r0 + r) % block;
            RowIo.load(q.segment(), q.dtype, q.offset + b * q.strides[0] + head * q.strides[1] + i * q.strides[2], q.strides[3], d, row);
            System.arraycopy(row, 0, queries, r * d, d);
            bounds(i, r, lo, hi);
        }
    }

    /** Sets {@code [lo[r], hi[r]]}, the keys query token i may see before an explicit mask is applied. */
    void bounds(int i, int r, int[] lo, int[] hi) {
        lo[r] = 0;
        hi[r] = tk - 1;
        if (causal) {
            hi[r] = Math.min(tk - 1, tk - tq + i);
            if (window > 0) lo[r] = Math.max(0, tk - tq + i - window + 1);
        }
    }

    /**
     * Scales and masks row r's raw scores {@code scores[off + j]} over {@code [lo[r], hi[r]]} and
     * replaces them by their softmax. The bounds then shrink to the first and last key the mask lets
     * through, and the exponentials are summed from that first key: masked keys before it (a row's
     * left padding) neither add to the sum nor move its lanes, so a row gets the same weights with or
     * without padding. A row whose keys are all masked gets {@code hi[r] = -1} (its output is zero)
     * and returns false.
     */
    boolean softmax(float[] scores, int off, int b, int head, int i, int r, int[] lo, int[] hi) {
        float max = Float.NEGATIVE_INFINITY;
        int first = -1;
        int last = -1;
        if (maskReader == null) {
            // no mask: scale and take the maximum a vector at a time (the same products, and a maximum
            // does not depend on its order), then only the ends can hold masked (-inf) scores to skip
            max = VectorMath.scaleAndMax(scores, off + lo[r], off + hi[r] + 1, scale);
            first = lo[r];
            last = hi[r];
            while (first <= last && scores[off + first] == Float.NEGATIVE_INFINITY) first++;
            while (last >= first && scores[off + last] == Float.NEGATIVE_INFINITY) last--;
            if (first > last) first = -1;
        } else {
            long rowAt = maskReader.rowAt(b, head, i);
            for (int j = lo[r]; j <= hi[r]; j++) {
                float sc = maskReader.apply(rowAt, j, scores[off + j] * scale);
                scores[off + j] = sc;
                if (sc == Float.NEGATIVE_INFINITY) continue;
                if (first < 0) first = j;
                last = j;
                max = Math.max(max, sc);
            }
        }
        if (first < 0 || max == Float.NEGATIVE_INFINITY) {
            hi[r] = -1;
            return false;
        }
        lo[r] = first;
        hi[r] = last;
        float inv = 1 / VectorMath.expShifted(scores, off + first, off + last + 1, max);
        VectorMath.scale(scores, off + first, off + last + 1, inv);
        return true;
    }

    /**
     * The keys any of rows {@code [0, rows)} may see, {@code [from, to)} packed as {@code from << 32 | to} ({@link #seenFrom},
     * {@link #seenTo}), from their bounds ({@link #bounds}; a row with {@code hi < lo} sees none): an empty range when none
     * sees any. A block of queries scores only these keys; a causal prefill's block sees none past its last token.
     */
    static long seenKeys(int[] lo, int[] hi, int rows) {
        int from = Integer.MAX_VALUE, to = 0;
        for (int r = 0; r < rows; r++) {
            if (hi[r] < lo[r]) continue;
            from = Math.min(from, lo[r]);
            to = Math.max(to, hi[r] + 1);
        }
        return from >= to ? 0 : (long) from << 32 | to;
    }

    static int seenFrom(long seen) {
        return (int) (seen >>> 32);
    }

    static int seenTo(long seen) {
        return (int) seen;
    }

    /**
     * Zeroes each row's weights in {@code [first, last]} outside its own {@code [lo, hi]} (all of them
     * for a fully masked row), so that kernels running every row over the same keys add nothing there.
     */
    static void zeroOutside(float[] scores, int tk, int rows, int[] lo, int[] hi, int first, int last) {
        for (int r = 0; r < rows; r++) {
            int off = r * tk;
            if (hi[r] < lo[r]) {
                Arrays.fill(scores, off + first, off + last + 1, 0f);
                continue;
            }
            if (lo[r] > first) Arrays.fill(scores, off + first, off + lo[r], 0f);
            if (hi[r] < last) Arrays.fill(scores, off + hi[r] + 1, off + last + 1, 0f);
        }
    }

    /**
     * One thread's buffers for attention over {@code rows} query rows of d and tk keys with values of dv: the
     * queries, their scores, the value sums, one row (a query row being loaded, a value row, an output row: never
     * two at once) and each row's key bounds. Made once per participating thread and call
     * ({@link panamax.backend.java.kernel.Parallel#forRange(int, int, java.util.function.Supplier,
     * panamax.backend.java.kernel.Parallel.StatefulRange)}): per chunk, the scores alone (128 KiB at 8k tokens and
     * four rows) were allocated and zeroed up to 4·threads times per call.
     */
    static final class Buffers {
        final float[] queries;
        final float[] scores;
        final float[] acc;
        final float[] row;
        final int[] lo;
        final int[] hi;

        Buffers(int rows, int d, int tk, int dv) {
            queries = new float[rows * d];
            scores = new float[rows * tk];
            acc = new float[rows * dv];
            row = new float[Math.max(d, dv)];
            lo = new int[rows];
            hi = new int[rows];
        }
    }

    /**
     * One work item of the fused attention kernels: row b, kv head h, the block of {@code block} query
     * tokens from i0, whose {@code rows = group·block} query rows are all the heads of h's group (row
     * r is head {@code h·group + r / block}, token {@code i0 + r % block}).
     */
    record Item(int b, int h, int i0, int block, int rows) {
        /** Item {@code item} of {@code B·Hkv·⌈Tq / queryBlock⌉}, query blocks innermost. */
        static Item of(int item, int queryBlock, int hkv, int tq, int group) {
            int qBlocks = (tq + queryBlock - 1) / queryBlock;
            int i0 = item % qBlocks * queryBlock;
            int block = Math.min(tq, i0 + queryBlock) - i0;
            return new Item(item / qBlocks / hkv, item / qBlocks % hkv, i0, block, group * block);
        }
    }

    /** Reads an explicit mask broadcast to [B, Hq, Tq, Tk]. */
    private record MaskReader(MemorySegment seg, DType dtype, long offset, long[] strides) {
        static MaskReader of(AttentionMask mask, int b, int hq, int tq, int tk) {
            if (!(mask instanceof AttentionMask.Explicit e)) return null;
            JavaTensor m = (JavaTensor) e.mask();
            if (m.isClosed()) throw new IllegalStateException("mask: tensor is closed");
            long[] strides = ViewOps.broadcastStrides(m, new int[] {b, hq, tq, tk}, "scaledDotProductAttention mask");
            return new MaskReader(m.segment(), m.dtype, m.offset, strides);
        }

        /** Where query (b, h, i)'s row of the mask starts, for {@link #apply}. */
        long rowAt(int b, int h, int i) {
            return offset + b * strides[0] + h * strides[1] + i * strides[2];
        }

        float apply(long rowAt, int j, float score) {
            long at = rowAt + j * strides[3];
            if (dtype == DType.BOOL) return seg.get(RowIo.I8, at) != 0 ? score : Float.NEGATIVE_INFINITY;
            return score + RowIo.getFloat(seg, dtype, at);
        }
    }
}
