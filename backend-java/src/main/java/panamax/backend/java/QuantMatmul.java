package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.AffineAccumulate;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.AffineScores;
import panamax.backend.java.kernel.AffineValues;
import panamax.backend.java.kernel.BPanelSource;
import panamax.backend.java.kernel.Gemm;
import panamax.backend.java.kernel.MatVec;
import panamax.backend.java.kernel.MultiRowQuantMatVec;
import panamax.backend.java.kernel.Parallel;
import panamax.backend.java.kernel.QuantMatVec;
import panamax.backend.java.kernel.RowScales;

/**
 * {@code x · W(ᵀ)} against an affine-quantized W, possibly batched ([..., N, K·b/32] with leading
 * axes broadcasting against x's). Few x rows use the matrix-vector kernels (vectorized for 2/4/8
 * bits); more rows feed the blocked GEMM with panels dequantized on the fly, never the whole W.
 */
final class QuantMatmul {
    private QuantMatmul() {
    }

    static JavaTensor run(JavaBackend backend, JavaTensor x, JavaTensor packed, JavaTensor scales, JavaTensor biases,
                          int rows, int cols, int groupSize, int bits, long rowBytes, boolean transpose, QuantOps.ScalesAt scalesAt) {
        int k = transpose ? cols : rows;
        int n = transpose ? rows : cols;
        if (x.rank() == 0 || x.dims[x.rank() - 1] != k) {
            throw new IllegalArgumentException("quantizedMatmul: expected x [..., " + k + "] for a " + (transpose ? "transposed " : "")
                    + "quantized matrix of " + rows + "×" + cols + ", found " + x.shape);
        }
        DType type = DTypes.promote(x.dtype, scales.dtype);
        int[] wBatch = Arrays.copyOf(packed.dims, packed.rank() - 2);
        JavaTensor xm;
        int[] outDims;
        int[] batch;
        if (wBatch.length == 0) {
            long r = x.elementCount() / Math.max(k, 1);
            xm = new ViewOps(backend).reshape(x, panamax.api.tensor.Shape.of((int) r, k));
            outDims = x.dims.clone();
            outDims[outDims.length - 1] = n;
            batch = new int[0];
        } else {
            int[] xd = x.rank() == 1 ? new int[] {1, k} : x.dims;
            int rb = Math.max(xd.length - 2, wBatch.length);
            batch = new int[rb];
            for (int i = 0; i < rb; i++) {
                int xi = i - (rb - (xd.length - 2));
                int wi = i - (rb - wBatch.length);
                int dx = xi >= 0 ? xd[xi] : 1;
                int dw = wi >= 0 ? wBatch[wi] : 1;
                if (dx != dw && dx != 1 && dw != 1) {
                    throw new IllegalArgumentException("quantizedMatmul: batch axes of x " + x.shape + " and w " + packed.shape + " do not broadcast");
                }
                batch[i] = dx == 1 ? dw : dx;
            }
            outDims = Arrays.copyOf(batch, rb + 2);
            outDims[rb] = xd[xd.length - 2];
            xm = x.rank() == 1 ? x.view(xd, new long[] {0, x.strides[0]}, x.offset) : x.view(x.dims, x.strides, x.offset);
            outDims[rb + 1] = n;
        }
        try (JavaTensor xv = xm) {
            int m = xv.dims[xv.rank() - 2];
            JavaTensor out = backend.allocate(outDims, type);
            long[] xb = MatmulOps.batchStrides(xv, batch);
            long[] pb = MatmulOps.batchStrides(packed, batch);
            long[] sb = MatmulOps.batchStrides(scales, batch);
            long[] bb = MatmulOps.batchStrides(biases, batch);
            int matrices = 1;
            for (int d : batch) matrices *= d;
            MemorySegment ps = packed.segment();
            Parallel.Range body = (from, to) -> {
                for (int i = from; i < to; i++) {
                    float[] xr = MatmulOps.rows(xv, xv.offset + MatmulOps.batchOffset(i, batch, xb), m, k);
                    RowScales params = scalesAt.at(scales.offset + MatmulOps.batchOffset(i, batch, sb),
                            biases.offset + MatmulOps.batchOffset(i, batch, bb));
                    long base = (packed.offset + MatmulOps.batchOffset(i, batch, pb)) * 4;
                    float[] c = new float[m * n];
                    multiply(backend.parallel, ps, base, rowBytes, bits, groupSize, params, xr, m, k, n, transpose, c);
                    MatmulOps.store(out, (long) i * m * n, c);
                }
            };
            long flops = 2L * m * n * k;
            if (matrices >= 2 * backend.parallel.threads() || matrices > 1 && flops < 8_000_000) backend.parallel.forRange(matrices, (int) Math.max(1, 2_000_000 / Math.max(flops, 1)), body);
            else body.run(0, matrices);
            return out;
        }
    }

    private static void multiply(Parallel par, MemorySegment ps, long base, long rowBytes, int bits, int gs, RowScales params,
                                 float[] x, int m, int k, int n, boolean transpose, float[] c) {
        int groupsPerRow = (transpose ? k : n) / gs;
        if (transpose && m > 1 && m <= AffineScores.ROWS && AffineScores.supports(bits, k, gs)) {
            // attention's q·Kᵀ over 2/4/8-bit rows of ≤ 512 codes: each chunk decoded once for the query
            // rows of a GQA group. One row is a plain matrix-vector product (a small model's weights, or
            // attention without GQA): QuantMatVec below, rather than four rows' work for one
            float[][] arranged = AffineScores.arrange(x, m, k, bits, gs);
            par.forEvenSplit(n, Math.max(64, 16384 / Math.max(k, 1)), (n0, n1) ->
                    AffineScores.scores(ps, base, rowBytes, bits, gs, k, params, arranged, m, n0, n1, c, n));
            return;
        }
        if (transpose && m <= AffineAccumulate.ROWS && AffineAccumulate.supports(bits, k, gs)) {
            // attention's q·Kᵀ over short rows (k·bits ≤ 512): codes decoded in registers, four query rows at once
            par.forEvenSplit(n, Math.max(64, 16384 / Math.max(k, 1)), (n0, n1) ->
                    AffineAccumulate.scores(ps, base, rowBytes, bits, gs, k, params, x, m, n0, n1, c, n));
            return;
        }
        if (transpose && m > 1 && m <= MatmulOps.MULTI_ROW_M && QuantMatVec.supports(bits, k, gs)) {
            // decode each weight row once for all m rows
            float[] xa = new float[m * k];
            for (int r = 0; r < m; r++) QuantMatVec.arrange(x, r * k, k, bits, xa, r * k);
            par.forEvenSplit((n + 3) / 4, Math.max(1, 16384 / Math.max(k, 1)), (q0, q1) ->
                    MultiRowQuantMatVec.vector(ps, base, rowBytes, bits, gs, k, params, xa, m, 4 * q0, Math.min(n, 4 * q1), c, n));
            return;
        }
        if (transpose && m <= MatmulOps.SMALL_M) {
            int grain = Math.max(1, 65536 / Math.max(k, 1));
            if (QuantMatVec.supports(bits, k, gs)) {
                float[] xa = new float[m * k];
                float[] sums = new float[m * (k / gs)];
                for (int r = 0; r < m; r++) {
                    QuantMatVec.arrange(x, r * k, k, bits, xa, r * k);
                    QuantMatVec.groupSums(x, r * k, k, gs, sums, r * (k / gs));
                }
                par.forEvenSplit(n, grain, (n0, n1) -> QuantMatVec.vector(ps, base, rowBytes, bits, gs, k, params, xa, sums, m, n0, n1, c, n));
            } else {
                par.forEvenSplit(n, grain, (n0, n1) -> QuantMatVec.generic(ps, base, rowBytes, bits, gs, k, params, x, m, n0, n1, c, n));
            }
            return;
        }
        if (!transpose && m <= AffineValues.ROWS && AffineValues.supports(bits, n, gs)) {
            // attention's p·V over 2/4/8-bit rows of ≤ 512 codes: each code vector decoded once for four rows
            if (k == 0) return; // no tokens: c stays zero
            int groups = n / gs;
            int span = Math.max(256, 262144 / Math.max(n, 1));
            int parts = (k + span - 1) / span;
            float[][] acc = new float[parts][];
            float[][] bias = new float[parts][];
            par.forRange(parts, 1, (p0, p1) -> {
                for (int p = p0; p < p1; p++) {
                    acc[p] = new float[AffineValues.ROWS * n];
                    bias[p] = new float[AffineValues.ROWS * groups];
                    AffineValues.accumulate(ps, base, rowBytes, bits, gs, n, params, x, m, k, p * span, Math.min(k, (p + 1) * span), acc[p], bias[p]);
                }
            });
            // parts are added in index order, whichever thread ran them: the same sums every run
            for (int p = 1; p < parts; p++) {
                for (int i = 0; i < acc[0].length; i++) acc[0][i] += acc[p][i];
                for (int i = 0; i < bias[0].length; i++) bias[0][i] += bias[p][i];
            }
            for (int r = 0; r < m; r++) AffineValues.finish(acc[0], bias[0], r, bits, gs, n, c, r * n);
            return;
        }
        if (!transpose && m <= AffineAccumulate.ROWS && AffineAccumulate.supports(bits, n, gs)) {
            // attention's p·V: codes decoded in registers, four rows' accumulators held across token blocks
            Map<Integer, float[]> parts = new ConcurrentSkipListMap<>();
            par.forRange(k, Math.max(256, 262144 / Math.max(n, 1)), (k0, k1) -> {
                float[] part = new float[AffineAccumulate.ROWS * n];
                AffineAccumulate.accumulate(ps, base, rowBytes, bits, gs, n, params, x, m, k, k0, k1, part);
                parts.put(k0, part);
            });
            float[] acc = sumInOrder(parts, AffineAccumulate.ROWS * n);
            System.arraycopy(acc, 0, c, 0, m * n);
            return;
        }
        if (!transpose && m <= MatmulOps.SMALL_M && QuantMatVec.supports(bits, n, gs)) {
            // whole rows decoded by vector ops in arranged order; accumulate there, reorder once
            Map<Integer, float[]> parts = new ConcurrentSkipListMap<>();
            par.forRange(k, Math.max(64, 262144 / Math.max(n, 1)), (k0, k1) -> {
                float[] s = new float[groupsPerRow];
                float[] b = new float[groupsPerRow];
                float[] row = new float[n];
                float[] part = new float[m * n];
                for (int kk = k0; kk < k1; kk++) {
                    params.load(kk, s, b);
                    QuantMatVec.dequantizeArranged(ps, base + kk * rowBytes, bits, gs, n, s, b, row);
                    for (int r = 0; r < m; r++) {
                        float xv = x[r * k + kk];
                        if (xv != 0) MatVec.axpy(xv, row, 0, part, r * n, n);
                    }
                }
                parts.put(k0, part);
            });
            float[] acc = sumInOrder(parts, m * n);
            for (int r = 0; r < m; r++) QuantMatVec.unarrange(acc, r * n, n, bits, c, r * n);
            return;
        }
        if (!transpose && m <= MatmulOps.SMALL_M) {
            par.forRange(n, Math.max(gs, 65536 / Math.max(k, 1)), (n0, n1) -> {
                int w = n1 - n0;
                float[] s = new float[groupsPerRow];
                float[] b = new float[groupsPerRow];
                int[] codes = new int[w];
                float[] row = new float[w];
                float[] acc = new float[m * w];
                for (int kk = 0; kk < k; kk++) {
                    params.load(kk, s, b);
                    AffineCodes.dequantize(ps, base + kk * rowBytes, bits, gs, s, b, n0, n1, codes, row, 0);
                    for (int r = 0; r < m; r++) MatVec.axpy(x[r * k + kk], row, 0, acc, r * w, w);
                }
                for (int r = 0; r < m; r++) System.arraycopy(acc, r * w, c, r * n + n0, w);
            });
            return;
        }
        BPanelSource panels = (k0, kc, n0, nr, dst, off, width) -> {
            float[] s = new float[groupsPerRow];
            float[] b = new float[groupsPerRow];
            if (transpose) {
                int[] codes = new int[kc];
                float[] row = new float[kc];
                for (int j = 0; j < nr; j++) {
                    params.load(n0 + j, s, b);
                    AffineCodes.dequantize(ps, base + (n0 + j) * rowBytes, bits, gs, s, b, k0, k0 + kc, codes, row, 0);
                    for (int kk = 0; kk < kc; kk++) dst[off + kk * width + j] = row[kk];
                }
                for (int kk = 0; kk < kc; kk++) Arrays.fill(dst, off + kk * width + nr, off + kk * width + width, 0f);
            } else {
                int[] codes = new int[nr];
                for (int kk = 0; kk < kc; kk++) {
                    params.load(k0 + kk, s, b);
                    AffineCodes.dequantize(ps, base + (k0 + kk) * rowBytes, bits, gs, s, b, n0, n0 + nr, codes, dst, off + kk * width);
                    Arrays.fill(dst, off + kk * width + nr, off + kk * width + width, 0f);
                }
            }
        };
        Gemm.multiply(par, m, n, k, x, k, panels, c, n);
    }

    /**
     * The element-wise sum of the parts, added in the order of their first index (the map's order),
     * whichever thread made them: the same rounding on every run (adding them as threads finished
     * made a decode depend on scheduling).
     */
    private static float[] sumInOrder(Map<Integer, float[]> parts, int length) {
        float[] sum = new float[length];
        for (float[] part : parts.values()) {
            for (int i = 0; i < length; i++) sum[i] += part[i];
        }
        return sum;
    }
}
