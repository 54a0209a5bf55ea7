package panamax.kv.codecs.turboquant;

/**
 * The largest error TurboQuant's codebook can make on a unit vector, over every unit vector (not on
 * average): each rotated coordinate y (|y| ≤ 1) is replaced by the centroid of its cell, an error
 * e(y); the squared error of a vector is Σ e(yᵢ)² subject to Σ yᵢ² = 1 over n coordinates. For
 * every λ in [0, 1), Σ e(yᵢ)² = Σ (e(yᵢ)² − λyᵢ²) + λ ≤ n·max_y (e(y)² − λy²) + λ, and for λ < 1 the
 * maximum over a cell lies at its ends; the bound is the least of these over a grid of λ.
 */
final class WorstCaseError {
    private WorstCaseError() {
    }

    /** An upper bound on ‖u − û‖₂ for unit vectors u of {@code n} coordinates quantized with {@code codebook}. */
    static double ofUnitVector(LloydMaxCodebook codebook, int n) {
        float[] centroids = codebook.centroidsAsFloats();
        float[] boundaries = codebook.boundariesAsFloats();
        int cells = centroids.length;
        double[] ends = new double[2 * cells];
        double[] errors = new double[2 * cells];
        for (int i = 0; i < cells; i++) {
            double lo = i == 0 ? -1 : boundaries[i - 1];
            double hi = i == cells - 1 ? 1 : boundaries[i];
            ends[2 * i] = lo;
            ends[2 * i + 1] = hi;
            errors[2 * i] = lo - centroids[i];
            errors[2 * i + 1] = hi - centroids[i];
        }
        double best = Double.POSITIVE_INFINITY;
        for (int step = 0; step < 1000; step++) {
            double lambda = step / 1000.0;
            double worst = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < ends.length; j++) worst = Math.max(worst, errors[j] * errors[j] - lambda * ends[j] * ends[j]);
            best = Math.min(best, n * worst + lambda);
        }
        return Math.sqrt(Math.max(best, 0));
    }
}
