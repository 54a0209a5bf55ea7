package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.MatVec;

/**
 * Fused scaled-dot-product attention with grouped-query heads. Work items are (row, kv head,
 * block of queries); each converts its kv head's keys and values to f32 once and serves every
 * query head of the group. Scores, masking and softmax stay in a per-query f32 buffer.
 */
final class AttentionOps {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
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
        MaskReader maskReader = MaskReader.of(mask, b, hq, tq, tk);
        JavaTensor out = backend.allocate(new int[] {b, hq, tq, dv}, q.dtype);
        int qBlocks = (tq + QUERY_BLOCK - 1) / QUERY_BLOCK;
        int items = b * hkv * qBlocks;
        float fscale = (float) scale;
        MemorySegment os = out.segment();
        backend.parallel.forRange(items, 1, (from, to) -> {
            float[] keys = new float[tk * d];
            float[] values = new float[tk * dv];
            float[] query = new float[d];
            float[] scores = new float[tk];
            float[] acc = new float[dv];
            for (int item = from; item < to; item++) {
                int qb = item % qBlocks;
                int h = (item / qBlocks) % hkv;
                int bi = item / qBlocks / hkv;
                load(k, bi, h, tk, d, keys);
                load(v, bi, h, tk, dv, values);
                int i0 = qb * QUERY_BLOCK;
                int i1 = Math.min(tq, i0 + QUERY_BLOCK);
                for (int g = 0; g < group; g++) {
                    int head = h * group + g;
                    for (int i = i0; i < i1; i++) {
                        RowIo.load(q.segment(), q.dtype, q.offset + bi * q.strides[0] + head * q.strides[1] + i * q.strides[2],
                                q.strides[3], d, query);
                        int lo = 0;
                        int hi = tk - 1;
                        if (mask instanceof AttentionMask.Causal c) {
                            hi = tk - tq + i;
                            if (c.window() > 0) lo = Math.max(0, hi - c.window() + 1);
                            hi = Math.min(hi, tk - 1);
                        }
                        Arrays.fill(acc, 0f);
                        if (hi >= lo) {
                            float max = Float.NEGATIVE_INFINITY;
                            for (int j = lo; j <= hi; j++) {
                                float s = MatVec.dot(query, 0, keys, j * d, d) * fscale;
                                if (maskReader != null) s = maskReader.apply(bi, head, i, j, s);
                                scores[j] = s;
                                max = Math.max(max, s);
                            }
                            if (max != Float.NEGATIVE_INFINITY) {
                                float sum = expInPlace(scores, lo, hi + 1, max);
                                float inv = 1 / sum;
                                for (int j = lo; j <= hi; j++) {
                                    float p = scores[j] * inv;
                                    if (p != 0) MatVec.axpy(p, values, j * dv, acc, 0, dv);
                                }
                            }
                        }
                        long at = (((long) bi * hq + head) * tq + i) * dv;
                        RowIo.store(os, q.dtype, at, 1, dv, acc);
                    }
                }
            }
        });
        return out;
    }

    /** {@code s[j] = exp(s[j] − max)} for j in [from, to), returning the sum. */
    private static float expInPlace(float[] s, int from, int to, float max) {
        FloatVector m = FloatVector.broadcast(S, max);
        FloatVector sum = FloatVector.zero(S);
        int j = from;
        int bound = from + S.loopBound(to - from);
        for (; j < bound; j += S.length()) {
            FloatVector e = FloatVector.fromArray(S, s, j).sub(m).lanewise(VectorOperators.EXP);
            e.intoArray(s, j);
            sum = sum.add(e);
        }
        float total = sum.reduceLanes(VectorOperators.ADD);
        for (; j < to; j++) {
            float e = (float) Math.exp(s[j] - max);
            s[j] = e;
            total += e;
        }
        return total;
    }

    /** Rows [t, dim] of head h of row b of x as row-major f32. */
    private static void load(JavaTensor x, int b, int h, int t, int dim, float[] dst) {
        MemorySegment s = x.segment();
        long base = x.offset + b * x.strides[0] + h * x.strides[1];
        long rowStride = x.strides[2];
        long colStride = x.strides[3];
        if (x.dtype == DType.F32 && colStride == 1 && rowStride == dim) {
            MemorySegment.copy(s, RowIo.F32, base * 4, dst, 0, t * dim);
            return;
        }
        float[] row = new float[dim];
        for (int j = 0; j < t; j++) {
            RowIo.load(s, x.dtype, base + j * rowStride, colStride, dim, row);
            System.arraycopy(row, 0, dst, j * dim, dim);
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

        float apply(int b, int h, int i, int j, float score) {
            long at = offset + b * strides[0] + h * strides[1] + i * strides[2] + j * strides[3];
            if (dtype == DType.BOOL) return seg.get(RowIo.I8, at) != 0 ? score : Float.NEGATIVE_INFINITY;
            return score + RowIo.getFloat(seg, dtype, at);
        }
    }
}
