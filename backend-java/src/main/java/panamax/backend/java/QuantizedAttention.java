package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.AttentionMask;
import panamax.backend.java.kernel.CodeColumns;
import panamax.backend.java.kernel.CodeRows;
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
        return unitWords(keys.packed()) && unitWords(values.packed())
                && CodeColumns.supports(keys.bits(), keys.cols()) && CodeRows.supports(values.bits(), values.cols(), values.groupSize());
    }

    private static boolean unitWords(JavaTensor packed) {
        return packed.strides[3] == 1 || packed.dims[3] == 1;
    }

    static JavaTensor run(JavaBackend backend, JavaTensor q, QuantOps.Parts keys, QuantOps.Parts values, double scale, AttentionMask mask) {
        JavaTensor kp = keys.packed();
        return FusedAttention.run(backend, q, kp.dims[1], kp.dims[2], values.cols(), scale, mask, () -> new Kernels(keys, values));
    }

    /** One thread's kernels and scratch, and the selected head's word bases and group parameters. */
    private static final class Kernels implements FusedAttention.Kernels {
        private final QuantOps.Parts keys;
        private final QuantOps.Parts values;
        private final int tk;
        private final MemorySegment ks;
        private final MemorySegment vs;
        private final CodeColumns scores;
        private final CodeRows sums;
        /** The value sums' group-constant parts per row and group. */
        private final float[] biasAcc;
        private long kBase;
        private long vBase;
        private RowScales kParams;
        private RowScales vParams;

        Kernels(QuantOps.Parts keys, QuantOps.Parts values) {
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
}
