package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.AttentionMask;
import panamax.backend.java.kernel.AffineLaneDecoder;
import panamax.backend.java.kernel.CodeColumns;
import panamax.backend.java.kernel.CodeRows;
import panamax.backend.java.kernel.LaneBlockProducts;
import panamax.backend.java.kernel.RowScales;

/**
 * Fused attention over an affine-quantized cache ({@link FusedAttention}'s loop): scores from the key
 * codes with {@link CodeColumns}, value sums from the value codes with {@link CodeRows}, any width from
 * 2 to 8 bits; nothing is dequantized. One any-width pair rather than kernels specialised for 2, 4 and
 * 8 bits: the specialised pair measured no faster on any of them (8192 tokens, head dim 128: 4-bit
 * 1.48 against 1.37 ms, 8-bit within noise; head dim 64, 8-bit 0.88 against 0.83 ms).
 */
final class QuantizedAttention {
    private QuantizedAttention() {
    }

    /** True when the kernels serve these keys and values: unit-stride words of widths and groups they decode. */
    static boolean supports(QuantOps.Parts keys, QuantOps.Parts values) {
        return unitWords(keys.packed()) && unitWords(values.packed()) && (codeKernels(keys, values) || laneBlocks(keys, values));
    }

    private static boolean codeKernels(QuantOps.Parts keys, QuantOps.Parts values) {
        return CodeColumns.supports(keys.bits(), keys.cols()) && CodeRows.supports(values.bits(), values.cols(), values.groupSize());
    }

    private static boolean laneBlocks(QuantOps.Parts keys, QuantOps.Parts values) {
        return AffineLaneDecoder.supports(keys.bits(), keys.cols(), keys.groupSize())
                && AffineLaneDecoder.supports(values.bits(), values.cols(), values.groupSize())
                && LaneBlockProducts.supports(keys.cols()) && LaneBlockProducts.supports(values.cols());
    }

    private static boolean unitWords(JavaTensor packed) {
        return packed.strides[3] == 1 || packed.dims[3] == 1;
    }

    static JavaTensor run(JavaBackend backend, JavaTensor q, QuantOps.Parts keys, QuantOps.Parts values, double scale, AttentionMask mask) {
        JavaTensor kp = keys.packed();
        if (codeKernels(keys, values)) {
            return FusedAttention.run(backend, q, kp.dims[1], kp.dims[2], values.cols(), scale, mask, () -> new Kernels(keys, values));
        }
        return FusedAttention.run(backend, q, kp.dims[1], kp.dims[2], values.cols(), scale, mask, () -> new LaneBlocks(keys, values));
    }

    /** The selected head of one thread's kernels: its keys' and values' word bases and group parameters. */
    private abstract static class SelectedHead implements FusedAttention.Kernels {
        final QuantOps.Parts keys;
        final QuantOps.Parts values;
        final int tk;
        final MemorySegment ks;
        final MemorySegment vs;
        long kBase;
        long vBase;
        RowScales kParams;
        RowScales vParams;

        SelectedHead(QuantOps.Parts keys, QuantOps.Parts values) {
            this.keys = keys;
            this.values = values;
            this.tk = keys.packed().dims[2];
            this.ks = keys.packed().segment();
            this.vs = values.packed().segment();
        }

        @Override
        public void head(int b, int h) {
            JavaTensor kp = keys.packed();
            JavaTensor vp = values.packed();
            kBase = (kp.offset + b * kp.strides[0] + h * kp.strides[1]) * 4;
            vBase = (vp.offset + b * vp.strides[0] + h * vp.strides[1]) * 4;
            kParams = keys.rowScales(b, h);
            vParams = values.rowScales(b, h);
        }

        long keyRowBytes() {
            return keys.packed().strides[2] * 4L;
        }

        long valueRowBytes() {
            return values.packed().strides[2] * 4L;
        }
    }

    /** One thread's sixteen-lane kernels and scratch. */
    private static final class Kernels extends SelectedHead {
        private final CodeColumns scores;
        private final CodeRows sums;
        /** The value sums' group-constant parts per row and group. */
        private final float[] biasAcc;

        Kernels(QuantOps.Parts keys, QuantOps.Parts values) {
            super(keys, values);
            this.scores = new CodeColumns(keys.bits(), keys.cols(), keys.groupSize());
            this.sums = new CodeRows(values.bits(), values.cols(), values.groupSize());
            this.biasAcc = new float[FusedAttention.ROWS * (values.cols() / values.groupSize())];
        }

        @Override
        public void scores(float[] queries, int m, int j0, int j1, float[] out) {
            scores.affineScores(ks, kBase, keyRowBytes(), kParams, queries, m, j0, j1, out, tk);
        }

        @Override
        public void values(float[] weights, int m, int first, int last, float[] acc) {
            Arrays.fill(biasAcc, 0f);
            sums.affine(vs, vBase, valueRowBytes(), vParams, weights, m, tk, first, last + 1, acc, biasAcc);
        }

        @Override
        public void row(float[] acc, int r, float[] row) {
            sums.finishAffine(acc, biasAcc, r, row);
        }
    }

    /**
     * The kernels on any lane count: {@link #BLOCK} keys at a time decoded into f32 in lane order and
     * scored there; values of one group per row summed straight from their codes, others decoded by
     * blocks likewise. Queries are put in lane order once per call of {@link #scores}, sums back in
     * column order once per row.
     */
    private static final class LaneBlocks extends SelectedHead {
        /** Keys decoded per block: a whole number of lane sums, and a block of head dim 128 stays 16 KiB. */
        private static final int BLOCK = 32;

        private final int d;
        private final int dv;
        private final AffineLaneDecoder keyDecoder;
        private final AffineLaneDecoder valueDecoder;
        private final float[] block;
        private final float[] laneQueries;
        private final float[] sums = new float[LaneBlockProducts.scratchLength()];
        private final float[] scaledWeights = new float[FusedAttention.ROWS * BLOCK];
        private final float[] blockScales = new float[BLOCK];
        private final float[] blockBiases = new float[BLOCK];
        /** Per row, {@code Σ p·b} of the last {@link #values} call (one group per row). */
        private final float[] biasSums = new float[FusedAttention.ROWS];

        LaneBlocks(QuantOps.Parts keys, QuantOps.Parts values) {
            super(keys, values);
            this.d = keys.cols();
            this.dv = values.cols();
            this.keyDecoder = new AffineLaneDecoder(keys.bits(), d, keys.groupSize(), BLOCK);
            this.valueDecoder = new AffineLaneDecoder(values.bits(), dv, values.groupSize(), BLOCK);
            this.block = new float[BLOCK * Math.max(d, dv)];
            this.laneQueries = new float[FusedAttention.ROWS * d];
        }

        @Override
        public void scores(float[] queries, int m, int j0, int j1, float[] out) {
            for (int r = 0; r < m; r++) keyDecoder.toLanes(queries, r * d, laneQueries, r * d);
            long rowBytes = keyRowBytes();
            for (int t0 = j0; t0 < j1; t0 += BLOCK) {
                int n = Math.min(BLOCK, j1 - t0);
                keyDecoder.decode(ks, kBase, rowBytes, kParams, t0, n, block);
                for (int r = 0; r < m; r++) LaneBlockProducts.scores(block, n, d, laneQueries, r * d, out, r * tk + t0, sums);
            }
        }

        @Override
        public void values(float[] weights, int m, int first, int last, float[] acc) {
            long rowBytes = valueRowBytes();
            if (valueDecoder.sumsCodes()) {
                codeSums(weights, m, first, last, acc, rowBytes);
                return;
            }
            // blocks from the first key given: a sum's chain runs in key order however the blocks fall
            for (int t0 = first; t0 <= last; t0 += BLOCK) {
                int n = Math.min(BLOCK, last + 1 - t0);
                valueDecoder.decode(vs, vBase, rowBytes, vParams, t0, n, block);
                LaneBlockProducts.accumulate(block, n, dv, weights, t0, tk, m, acc);
            }
        }

        /**
         * Values of one group per row: {@code Σ (p·s)·code} from the words ({@link AffineLaneDecoder#accumulateCodes})
         * and {@code Σ p·b} per row beside it, each in key order from the first key.
         */
        private void codeSums(float[] weights, int m, int first, int last, float[] acc, long rowBytes) {
            Arrays.fill(biasSums, 0f);
            for (int t0 = first; t0 <= last; t0 += BLOCK) {
                int n = Math.min(BLOCK, last + 1 - t0);
                valueDecoder.loadParameters(vParams, t0, n, blockScales, blockBiases);
                for (int r = 0; r < m; r++) {
                    float bias = biasSums[r];
                    for (int j = 0; j < n; j++) {
                        float p = weights[r * tk + t0 + j];
                        scaledWeights[r * BLOCK + j] = p * blockScales[j];
                        bias = Math.fma(p, blockBiases[j], bias);
                    }
                    biasSums[r] = bias;
                }
                valueDecoder.accumulateCodes(vs, vBase, rowBytes, t0, n, scaledWeights, BLOCK, m, acc);
            }
        }

        @Override
        public void row(float[] acc, int r, float[] row) {
            valueDecoder.fromLanes(acc, r * dv, row);
            if (valueDecoder.sumsCodes()) {
                float bias = biasSums[r];
                for (int e = 0; e < dv; e++) row[e] += bias;
            }
        }
    }
}
