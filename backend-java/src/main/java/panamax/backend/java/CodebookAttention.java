package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.AttentionMask;
import panamax.backend.java.kernel.CodeColumns;
import panamax.backend.java.kernel.CodeRows;
import panamax.backend.java.kernel.CodebookValues;
import panamax.backend.java.kernel.CodebookVectors;

/**
 * Fused attention over codebook keys and values (TurboQuant's cache, in its rotated domain), on
 * {@link FusedAttention}'s loop: scores from {@link CodeColumns} (keys in lanes, any width, times each
 * key's norm; a 4-bit-only scores kernel measured 5–7 % slower), {@code Σ p·‖v‖·codebook[code]} from
 * {@link CodebookValues} (4-bit values of 16-word chunks) or the any-width {@link CodeRows}. Nothing is
 * decoded into a tensor.
 */
final class CodebookAttention {

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

    /**
     * True when the kernels serve these keys and values: codebooks of at most sixteen entries (held in
     * a register), unit-stride words, keys of {@link CodeColumns}, values of {@link CodebookValues} or of the any-width {@link CodeRows}.
     */
    static boolean supports(Side keys, Side values) {
        return keys.table.bits() != null && values.table.bits() != null
                && CodeColumns.supports(keys.bits, keys.cols)
                && (CodebookValues.supports(values.bits, values.cols) || CodeRows.supports(values.bits, values.cols, 0))
                && (keys.packed.strides[3] == 1 || keys.packed.dims[3] == 1) && (values.packed.strides[3] == 1 || values.packed.dims[3] == 1);
    }

    static JavaTensor run(JavaBackend backend, JavaTensor q, Side keys, Side values, double scale, AttentionMask mask) {
        return FusedAttention.run(backend, q, keys.packed.dims[1], keys.packed.dims[2], values.cols, scale, mask,
                () -> new Kernels(keys, null, values));
    }

    /**
     * Attention whose scores add a sketch term, {@code q·Kᵀ + qs·Sᵀ}: {@code both} holds each query row
     * followed by its sketch row ({@code [B, Hq, Tq, D + Ds]}), so the loop hands the kernels both at once.
     */
    static JavaTensor runSketched(JavaBackend backend, JavaTensor both, Side keys, Side sketch, Side values, double scale, AttentionMask mask) {
        return FusedAttention.run(backend, both, keys.packed.dims[1], keys.packed.dims[2], values.cols, scale, mask,
                () -> new Kernels(keys, sketch, values));
    }

    /** One thread's codebook kernels: the head's bases and norms, and the look-up blocks' scratch. */
    private static final class Kernels implements FusedAttention.Kernels {
        private final Side keys;
        private final Side values;
        private final int tk;
        private final MemorySegment ks;
        private final MemorySegment vs;
        /** 4-bit values of whole 16-word chunks: the register-blocked kernel, in its own order (else CodeRows). */
        private final boolean blocked;
        /** The key scores, and the any-width value sums where {@code blocked} is false (else null). */
        private final CodeColumns scores;
        private final CodeRows anyValues;
        private final float[] keyNorms;
        private final float[] valueNorms;
        private long kBase;
        private long vBase;
        /** The sketch's side, kernels, row scales and head base, and the two halves of the query rows (or null). */
        private final Side sketch;
        private final CodeColumns sketchScores;
        private final float[] sketchScales;
        private final float[] keyQueries;
        private final float[] sketchQueries;
        private long sBase;

        Kernels(Side keys, Side sketch, Side values) {
            this.keys = keys;
            this.values = values;
            this.tk = keys.packed.dims[2];
            this.ks = keys.packed.segment();
            this.vs = values.packed.segment();
            this.blocked = values.table.bits() != null && CodebookValues.supports(values.bits, values.cols);
            this.scores = new CodeColumns(keys.bits, keys.cols, 0);
            this.anyValues = blocked ? null : new CodeRows(values.bits, values.cols, 0);
            this.keyNorms = new float[tk];
            this.valueNorms = new float[tk];
            this.sketch = sketch;
            this.sketchScores = sketch == null ? null : new CodeColumns(sketch.bits, sketch.cols, 0);
            this.sketchScales = sketch == null ? null : new float[tk];
            this.keyQueries = sketch == null ? null : new float[FusedAttention.ROWS * keys.cols];
            this.sketchQueries = sketch == null ? null : new float[FusedAttention.ROWS * sketch.cols];
        }

        @Override
        public void head(int b, int h) {
            keys.scales(b, h, tk, keyNorms);
            values.scales(b, h, tk, valueNorms);
            kBase = keys.base(b, h);
            vBase = values.base(b, h);
            if (sketch != null) {
                sketch.scales(b, h, tk, sketchScales);
                sBase = sketch.base(b, h);
            }
        }

        @Override
        public void scores(float[] queries, int m, int j0, int j1, float[] scores) {
            if (sketch == null) {
                this.scores.codebookScores(ks, kBase, keys.rowBytes(), keys.table.laneBits(), keyNorms, queries, m, j0, j1, scores, 0, tk, false);
                return;
            }
            int d = keys.cols;
            int ds = sketch.cols;
            for (int r = 0; r < FusedAttention.ROWS; r++) { // each row: its key part, then its sketch part
                System.arraycopy(queries, r * (d + ds), keyQueries, r * d, d);
                System.arraycopy(queries, r * (d + ds) + d, sketchQueries, r * ds, ds);
            }
            this.scores.codebookScores(ks, kBase, keys.rowBytes(), keys.table.laneBits(), keyNorms, keyQueries, m, j0, j1, scores, 0, tk, false);
            sketchScores.codebookScores(sketch.packed.segment(), sBase, sketch.rowBytes(), sketch.table.laneBits(), sketchScales, sketchQueries, m,
                    j0, j1, scores, 0, tk, true);
        }

        @Override
        public void values(float[] scores, int m, int first, int last, float[] acc) {
            if (blocked) {
                CodebookValues.accumulate(vs, vBase, values.rowBytes(), values.bits, values.cols, values.table.laneBits(), valueNorms, scores, m,
                        tk, first, last + 1, acc);
                return;
            }
            anyValues.codebook(vs, vBase, values.rowBytes(), values.table.laneBits(), valueNorms, scores, m, tk, first, last + 1, acc);
        }

        @Override
        public void row(float[] acc, int r, float[] row) {
            if (blocked) CodebookValues.unarrange(acc, r * values.cols, values.cols, values.bits, row, 0);
            else anyValues.finishCodebook(acc, r, row);
        }
    }
}
