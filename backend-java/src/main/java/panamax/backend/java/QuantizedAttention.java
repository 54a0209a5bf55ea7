package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.AttentionMask;
import panamax.backend.java.kernel.AffineScores;
import panamax.backend.java.kernel.AffineValues;
import panamax.backend.java.kernel.CodeColumns;
import panamax.backend.java.kernel.CodeRows;
import panamax.backend.java.kernel.RowScales;

/**
 * Fused attention over an affine-quantized cache ({@link FusedAttention}'s loop): scores from the key
 * codes with {@link AffineScores}, value sums from the value codes with {@link AffineValues}; nothing
 * is dequantized. Caches those width-specialised kernels do not serve (3, 5 and 6 bits, 2-bit or
 * 4-bit rows of 128 or 64 codes, ...) take the any-width {@link CodeColumns} and {@link CodeRows}.
 */
final class QuantizedAttention {
    private QuantizedAttention() {
    }

    /** True when the kernels serve these keys and values: unit-stride words, and the specialised or the any-width kernels. */
    static boolean supports(QuantOps.Parts keys, QuantOps.Parts values) {
        return unitWords(keys.packed()) && unitWords(values.packed()) && (specialised(keys, values)
                || CodeColumns.supports(keys.bits(), keys.cols()) && CodeRows.supports(values.bits(), values.cols(), values.groupSize()));
    }

    /** 2, 4 or 8 bits in rows of ≤ 512 codes that the width-specialised kernels decode. */
    private static boolean specialised(QuantOps.Parts keys, QuantOps.Parts values) {
        return AffineScores.supports(keys.bits(), keys.cols(), keys.groupSize())
                && AffineValues.supports(values.bits(), values.cols(), values.groupSize());
    }

    private static boolean unitWords(JavaTensor packed) {
        return packed.strides[3] == 1 || packed.dims[3] == 1;
    }

    static JavaTensor run(JavaBackend backend, JavaTensor q, QuantOps.Parts keys, QuantOps.Parts values, double scale, AttentionMask mask) {
        JavaTensor kp = keys.packed();
        boolean specialised = specialised(keys, values);
        return FusedAttention.run(backend, q, kp.dims[1], kp.dims[2], values.cols(), scale, mask,
                () -> specialised ? new Kernels(keys, values, q.dims[3]) : new AnyWidthKernels(keys, values));
    }

    /** What both kernel sets of one thread share: the cache's parts, and the selected head's word bases and group parameters. */
    private abstract static class HeadState implements FusedAttention.Kernels {
        final QuantOps.Parts keys;
        final QuantOps.Parts values;
        final int tk;
        final MemorySegment ks;
        final MemorySegment vs;
        /** The value sums' group-constant parts per row and group. */
        final float[] biasAcc;
        long kBase;
        long vBase;
        RowScales kParams;
        RowScales vParams;

        HeadState(QuantOps.Parts keys, QuantOps.Parts values) {
            this.keys = keys;
            this.values = values;
            this.tk = keys.packed().dims[2];
            this.ks = keys.packed().segment();
            this.vs = values.packed().segment();
            this.biasAcc = new float[FusedAttention.ROWS * (values.cols() / values.groupSize())];
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
    }

    /** One thread's any-width kernels ({@link CodeColumns}, {@link CodeRows}). */
    private static final class AnyWidthKernels extends HeadState {
        private final CodeColumns scores;
        private final CodeRows sums;

        AnyWidthKernels(QuantOps.Parts keys, QuantOps.Parts values) {
            super(keys, values);
            this.scores = new CodeColumns(keys.bits(), keys.cols(), keys.groupSize());
            this.sums = new CodeRows(values.bits(), values.cols(), values.groupSize());
        }

        @Override
        public void scores(float[] queries, int m, float[] out) {
            scores.affineScores(ks, kBase, keys.packed().strides[2] * 4, kParams, queries, m, 0, tk, out, tk);
        }

        @Override
        public void values(float[] weights, int m, int first, int last, float[] acc) {
            Arrays.fill(biasAcc, 0f);
            sums.affine(vs, vBase, values.packed().strides[2] * 4, vParams, weights, m, tk, first, last + 1, acc, biasAcc);
        }

        @Override
        public void row(float[] acc, int r, float[] row) {
            sums.finishAffine(acc, biasAcc, r, row);
        }
    }

    /** One thread's width-specialised affine kernels ({@link AffineScores}, {@link AffineValues}). */
    private static final class Kernels extends HeadState {
        private final int d;

        Kernels(QuantOps.Parts keys, QuantOps.Parts values, int d) {
            super(keys, values);
            this.d = d;
        }

        @Override
        public void scores(float[] queries, int m, float[] scores) {
            float[][] arranged = AffineScores.arrange(queries, m, d, keys.bits(), keys.groupSize());
            AffineScores.scores(ks, kBase, keys.packed().strides[2] * 4, keys.bits(), keys.groupSize(), d, kParams, arranged, m, 0, tk,
                    scores, tk);
        }

        @Override
        public void values(float[] scores, int m, int first, int last, float[] acc) {
            Arrays.fill(biasAcc, 0f);
            AffineValues.accumulate(vs, vBase, values.packed().strides[2] * 4, values.bits(), values.groupSize(), values.cols(), vParams,
                    scores, m, tk, first, last + 1, acc, biasAcc);
        }

        @Override
        public void row(float[] acc, int r, float[] row) {
            AffineValues.finish(acc, biasAcc, r, values.bits(), values.groupSize(), values.cols(), row, 0);
        }
    }
}
