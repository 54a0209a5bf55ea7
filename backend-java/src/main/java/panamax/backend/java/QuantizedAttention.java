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

    /** One thread's any-width kernels ({@link CodeColumns}, {@link CodeRows}) and the head's bases and group parameters. */
    private static final class AnyWidthKernels implements FusedAttention.Kernels {
        private final QuantOps.Parts keys;
        private final QuantOps.Parts values;
        private final int tk;
        private final MemorySegment ks;
        private final MemorySegment vs;
        private final CodeColumns scores;
        private final CodeRows sums;
        private final float[] biasAcc;
        private long kBase;
        private long vBase;
        private RowScales kParams;
        private RowScales vParams;

        AnyWidthKernels(QuantOps.Parts keys, QuantOps.Parts values) {
            this.keys = keys;
            this.values = values;
            this.tk = keys.packed().dims[2];
            this.ks = keys.packed().segment();
            this.vs = values.packed().segment();
            this.scores = new CodeColumns(keys.bits(), keys.cols(), keys.groupSize());
            this.sums = new CodeRows(values.bits(), values.cols(), values.groupSize());
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

    /** One thread's affine kernels: the head's bases and group parameters, and the value sums' group-constant parts. */
    private static final class Kernels implements FusedAttention.Kernels {
        private final QuantOps.Parts keys;
        private final QuantOps.Parts values;
        private final int d;
        private final int tk;
        private final MemorySegment ks;
        private final MemorySegment vs;
        private final float[] biasAcc;
        private long kBase;
        private long vBase;
        private RowScales kParams;
        private RowScales vParams;

        Kernels(QuantOps.Parts keys, QuantOps.Parts values, int d) {
            this.keys = keys;
            this.values = values;
            this.d = d;
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
