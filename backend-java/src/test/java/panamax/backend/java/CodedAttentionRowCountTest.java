package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.CodeColumns;
import panamax.backend.java.kernel.CodeRows;

/**
 * Attention over coded keys and values sums a query row the same way whether one, two or four query rows share the
 * pass: groups of one or two query heads take two-row kernels ({@link CodeColumns#affineScores}' tiles, the 4-bit
 * pieces of {@link CodeRows#affine} and {@link CodeRows#codebook}), which must give the four-row kernels' bits, or a
 * row's attention output would depend on its model's GQA group.
 */
class CodedAttentionRowCountTest {
    private final Random random = new Random(3);

    @Test
    void fourBitValueRowsGiveTheSameBitsForOneTwoOrFourQueryRows() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int n : new int[] {64, 128}) {
                for (int gs : new int[] {64, 128}) {
                    if (gs > n || !CodeRows.supports(4, n, gs)) continue;
                    int tokens = 100; // a block of 64 tokens and a partial one
                    QuantizedRows values = QuantizedRows.of(arena, tokens, n, 4, gs, this::gaussian);
                    float[] p = gaussian(4 * tokens);
                    float[][] four = sums(values, p, 4, n, gs, tokens);
                    for (int m : new int[] {1, 2}) {
                        float[][] few = sums(values, p, m, n, gs, tokens);
                        for (int r = 0; r < m; r++) {
                            for (int j = 0; j < n; j++) {
                                assertEquals(Float.floatToRawIntBits(four[r][j]), Float.floatToRawIntBits(few[r][j]),
                                        "head dim " + n + ", group " + gs + ": row " + r + " of " + m + " differs from the 4-row pass at " + j);
                            }
                        }
                        checked++;
                    }
                }
            }
        }
        VectorWidth.requireChecked(checked, "CodeRows (4-bit value rows)", 512);
    }

    @Test
    void fourBitCodebookValueRowsGiveTheSameBitsForOneTwoOrFourQueryRows() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            int n = 128, tokens = 100;
            if (CodeRows.supports(4, n, 0)) {
                QuantizedRows values = QuantizedRows.of(arena, tokens, n, 4, n, this::gaussian); // only its packed codes are used
                int[] book = new int[16];
                float[] centroids = gaussian(16);
                for (int i = 0; i < 16; i++) book[i] = Float.floatToRawIntBits(centroids[i]);
                float[] rowScales = gaussian(tokens);
                float[] p = gaussian(4 * tokens);
                float[][] four = codebookSums(values, book, rowScales, p, 4, n, tokens);
                for (int m : new int[] {1, 2}) {
                    float[][] few = codebookSums(values, book, rowScales, p, m, n, tokens);
                    for (int r = 0; r < m; r++) {
                        for (int j = 0; j < n; j++) {
                            assertEquals(Float.floatToRawIntBits(four[r][j]), Float.floatToRawIntBits(few[r][j]),
                                    "codebook row " + r + " of " + m + " differs from the 4-row pass at " + j);
                        }
                    }
                    checked++;
                }
            }
        }
        VectorWidth.requireChecked(checked, "CodeRows (4-bit codebook value rows)", 512);
    }

    private static float[][] codebookSums(QuantizedRows values, int[] book, float[] rowScales, float[] p, int m, int n, int tokens) {
        CodeRows rows = new CodeRows(4, n, 0);
        float[] acc = new float[4 * n];
        rows.codebook(values.packed(), 0, values.rowBytes(), book, rowScales, p, m, tokens, 0, tokens, acc);
        float[][] out = new float[m][n];
        for (int r = 0; r < m; r++) rows.finishCodebook(acc, r, out[r]);
        return out;
    }

    @Test
    void affineKeyScoresGiveTheSameBitsForOneTwoOrFourQueryRows() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int bits : new int[] {3, 4, 5, 8}) {
                for (int gs : new int[] {32, 64}) {
                    int k = 128, keys = 45; // two tiles of sixteen keys per pass, the last pass partial
                    if (!CodeColumns.supports(bits, k)) continue;
                    QuantizedRows stored = QuantizedRows.of(arena, keys, k, bits, gs, this::gaussian);
                    float[] x = gaussian(4 * k);
                    float[] four = scores(stored, x, 4, bits, k, gs, keys);
                    for (int m : new int[] {1, 2}) {
                        float[] few = scores(stored, x, m, bits, k, gs, keys);
                        for (int i = 0; i < m * keys; i++) {
                            assertEquals(Float.floatToRawIntBits(four[i]), Float.floatToRawIntBits(few[i]),
                                    bits + "-bit keys, group " + gs + ": row " + i / keys + " of " + m + " differs from the 4-row pass at key " + i % keys);
                        }
                        checked++;
                    }
                }
            }
        }
        VectorWidth.requireChecked(checked, "CodeColumns (affine key scores)", 512);
    }

    private static float[] scores(QuantizedRows keys, float[] x, int m, int bits, int k, int gs, int count) {
        CodeColumns columns = new CodeColumns(bits, k, gs);
        float[] q = new float[4 * k];
        System.arraycopy(x, 0, q, 0, m * k); // rows past m zero, as the attention kernels pass them
        float[] c = new float[4 * count];
        columns.affineScores(keys.packed(), 0, keys.rowBytes(), keys.params(), q, m, 0, count, c, count);
        return c;
    }

    private static float[][] sums(QuantizedRows values, float[] p, int m, int n, int gs, int tokens) {
        CodeRows rows = new CodeRows(4, n, gs);
        int groups = n / gs;
        float[] acc = new float[4 * n];
        float[] biasAcc = new float[4 * groups];
        rows.affine(values.packed(), 0, values.rowBytes(), values.params(), p, m, tokens, 0, tokens, acc, biasAcc);
        float[][] out = new float[m][n];
        for (int r = 0; r < m; r++) rows.finishAffine(acc, biasAcc, r, out[r]);
        return out;
    }

    private float[] gaussian(int length) {
        return GaussianFloats.of(random, length);
    }
}
