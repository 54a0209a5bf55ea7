package panamax.kv.codecs.turboquant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The Lloyd-Max codebooks of a random unit vector's coordinate, computed by the Lloyd iteration. */
class LloydMaxCodebookTest {
    /** The paper's Lloyd-Max optima (Gaussian limit) that its table rounds, for b = 1..4. */
    private static final double[] PAPER_MSE = {0.3634, 0.1175, 0.0345, 0.0095};

    @Test
    void unitVectorDistortionAtDimension128IsWithinFivePercentOfThePapersOptimum() {
        for (int b = 1; b <= 4; b++) {
            double mse = 128 * LloydMaxCodebook.of(128, b).distortion();
            assertEquals(PAPER_MSE[b - 1], mse, 0.05 * PAPER_MSE[b - 1], "bits " + b);
        }
    }

    @Test
    void oneBitCentroidsAreTheMeanAbsoluteCoordinate() {
        // E|x| for a coordinate of a uniform unit vector in d dims: Γ(d/2) / (√π · Γ((d+1)/2))
        for (int d : new int[] {64, 128, 256}) {
            double expected = Math.exp(logGamma(d / 2.0) - logGamma((d + 1) / 2.0)) / Math.sqrt(Math.PI);
            double[] c = LloydMaxCodebook.of(d, 1).centroids();
            assertEquals(expected, c[1], 1e-6 * expected, "d=" + d);
            assertEquals(-c[1], c[0], 1e-12);
            // distortion E x² − c² = 1/d − c²
            assertEquals(1.0 / d - expected * expected, LloydMaxCodebook.of(d, 1).distortion(), 1e-8);
        }
    }

    @Test
    void codebooksAreSymmetricSortedWithBoundariesAtMidpoints() {
        for (int b = 1; b <= 8; b++) {
            LloydMaxCodebook cb = LloydMaxCodebook.of(64, b);
            double[] c = cb.centroids();
            double[] t = cb.boundaries();
            assertEquals(1 << b, c.length);
            for (int k = 0; k < c.length; k++) assertEquals(-c[c.length - 1 - k], c[k], 0.0, "symmetry at " + k);
            for (int k = 0; k + 1 < c.length; k++) {
                assertTrue(c[k] < c[k + 1], "ascending at " + k);
                assertEquals(0.5 * (c[k] + c[k + 1]), t[k], 1e-15);
            }
        }
    }

    @Test
    void eachExtraBitCutsTheDistortionByAboutFourTimes() {
        for (int b = 2; b <= 8; b++) {
            double ratio = LloydMaxCodebook.of(128, b - 1).distortion() / LloydMaxCodebook.of(128, b).distortion();
            assertTrue(ratio > 2.9 && ratio < 4.3, "bits " + b + ": ratio " + ratio);
        }
    }

    @Test
    void encodingPicksTheNearestCentroid() {
        LloydMaxCodebook cb = LloydMaxCodebook.of(128, 3);
        double[] c = cb.centroids();
        for (double x = -0.5; x <= 0.5; x += 0.0013) {
            int best = 0;
            for (int k = 1; k < c.length; k++) if (Math.abs(x - c[k]) < Math.abs(x - c[best])) best = k;
            assertEquals(best, cb.encode(x), "x = " + x);
        }
    }

    @Test
    void codebooksAreComputedOncePerDimensionAndWidth() {
        assertSame(LloydMaxCodebook.of(96, 2), LloydMaxCodebook.of(96, 2));
    }

    private static double logGamma(double x) {
        // Lanczos approximation, g = 7, n = 9 (accurate to ~1e-15 for x > 0.5)
        double[] g = {0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7};
        x -= 1;
        double a = g[0];
        double t = x + 7.5;
        for (int i = 1; i < 9; i++) a += g[i] / (x + i);
        return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
    }
}
