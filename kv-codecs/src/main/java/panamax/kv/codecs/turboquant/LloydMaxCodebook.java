package panamax.kv.codecs.turboquant;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Lloyd-Max scalar quantizer for one coordinate of a random unit vector in dimension {@code d}:
 * {@code 2^bits} centroids minimizing {@code E(x − c(x))²} under the density
 * {@code f(x) ∝ (1 − x²)^((d−3)/2)} on [−1, 1]. Computed here by the Lloyd iteration (boundaries at
 * midpoints, centroids at conditional means) with the integrals taken numerically on a fine grid,
 * once per (d, bits), and cached for the life of the JVM. Immutable and thread-safe.
 *
 * @param dimension  d
 * @param bits       bits per coordinate
 * @param centroids  2^bits reconstruction levels, ascending
 * @param boundaries 2^bits − 1 decision thresholds (midpoints of adjacent centroids), ascending
 * @param distortion {@code E(x − c(x))²} per coordinate; a unit vector's MSE is {@code d · distortion}
 */
public record LloydMaxCodebook(int dimension, int bits, double[] centroids, double[] boundaries, double distortion) {

    /** Grid intervals over [−1, 1]; fine enough that the outermost 8-bit cells hold many nodes. */
    private static final int GRID = 1 << 18;
    private static final int MAX_ITERATIONS = 20_000;

    private static final Map<Long, LloydMaxCodebook> CACHE = new ConcurrentHashMap<>();

    public LloydMaxCodebook {
        centroids = centroids.clone();
        boundaries = boundaries.clone();
    }

    @Override
    public double[] centroids() {
        return centroids.clone();
    }

    @Override
    public double[] boundaries() {
        return boundaries.clone();
    }

    /** The centroids as floats, for a backend tensor. */
    public float[] centroidsAsFloats() {
        float[] out = new float[centroids.length];
        for (int i = 0; i < out.length; i++) out[i] = (float) centroids[i];
        return out;
    }

    /** The boundaries as floats, for a backend tensor. */
    public float[] boundariesAsFloats() {
        float[] out = new float[boundaries.length];
        for (int i = 0; i < out.length; i++) out[i] = (float) boundaries[i];
        return out;
    }

    /** Index of the centroid nearest to {@code x} (the number of boundaries below it). */
    public int encode(double x) {
        int lo = 0;
        int hi = boundaries.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (x > boundaries[mid]) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /**
     * The codebook for ({@code dimension}, {@code bits}), computed on first use and cached.
     *
     * @throws IllegalArgumentException when dimension &lt; 3 or bits is outside 1..8
     */
    public static LloydMaxCodebook of(int dimension, int bits) {
        if (dimension < 3) throw new IllegalArgumentException("dimension must be >= 3, found " + dimension);
        if (bits < 1 || bits > 8) throw new IllegalArgumentException("bits must be in 1..8, found " + bits);
        return CACHE.computeIfAbsent(((long) dimension << 8) | bits, k -> compute(dimension, bits));
    }

    private static LloydMaxCodebook compute(int d, int bits) {
        CumulativeMoments m = new CumulativeMoments(d);
        int levels = 1 << bits;
        double[] c = new double[levels];
        // Start from the quantiles: close to the optimum, so even 256 levels converge quickly.
        for (int k = 0; k < levels; k++) c[k] = m.quantile((k + 0.5) / levels);
        double[] b = new double[levels - 1];
        double tolerance = 1e-13 / Math.sqrt(d);
        for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
            for (int k = 0; k < levels - 1; k++) b[k] = 0.5 * (c[k] + c[k + 1]);
            double change = 0;
            for (int k = 0; k < levels; k++) {
                double lo = k == 0 ? -1 : b[k - 1];
                double hi = k == levels - 1 ? 1 : b[k];
                double mass = m.mass(lo, hi);
                double next = mass > 1e-300 ? m.firstMoment(lo, hi) / mass : 0.5 * (lo + hi);
                change = Math.max(change, Math.abs(next - c[k]));
                c[k] = next;
            }
            if (change < tolerance) break;
        }
        // the density is even, so the optimum is symmetric; remove the grid's rounding asymmetry
        for (int k = 0; k < levels / 2; k++) {
            double half = 0.5 * (c[levels - 1 - k] - c[k]);
            c[k] = -half;
            c[levels - 1 - k] = half;
        }
        for (int k = 0; k < levels - 1; k++) b[k] = 0.5 * (c[k] + c[k + 1]);
        double distortion = 0;
        for (int k = 0; k < levels; k++) {
            double lo = k == 0 ? -1 : b[k - 1];
            double hi = k == levels - 1 ? 1 : b[k];
            // ∫(x − c)² f = S − 2cM + c²F over the cell
            distortion += m.secondMoment(lo, hi) - 2 * c[k] * m.firstMoment(lo, hi) + c[k] * c[k] * m.mass(lo, hi);
        }
        return new LloydMaxCodebook(d, bits, c, b, distortion);
    }

    /**
     * Cumulative integrals of {@code f}, {@code x·f} and {@code x²·f} on a uniform grid over [−1, 1]
     * (trapezoid rule), interpolated linearly between nodes.
     */
    private static final class CumulativeMoments {
        private final double[] mass = new double[GRID + 1];
        private final double[] first = new double[GRID + 1];
        private final double[] second = new double[GRID + 1];
        private static final double STEP = 2.0 / GRID;

        CumulativeMoments(int d) {
            double exponent = (d - 3) / 2.0;
            double[] f = new double[GRID + 1];
            for (int i = 0; i <= GRID; i++) {
                double x = -1 + i * STEP;
                double oneMinus = 1 - x * x;
                // log form: (1 − x²)^((d−3)/2) underflows for large d near ±1
                f[i] = oneMinus <= 0 ? (exponent == 0 ? 1 : 0) : Math.exp(exponent * Math.log(oneMinus));
            }
            for (int i = 1; i <= GRID; i++) {
                double x0 = -1 + (i - 1) * STEP;
                double x1 = -1 + i * STEP;
                mass[i] = mass[i - 1] + 0.5 * STEP * (f[i - 1] + f[i]);
                first[i] = first[i - 1] + 0.5 * STEP * (x0 * f[i - 1] + x1 * f[i]);
                second[i] = second[i - 1] + 0.5 * STEP * (x0 * x0 * f[i - 1] + x1 * x1 * f[i]);
            }
            double total = mass[GRID];
            for (int i = 0; i <= GRID; i++) {
                mass[i] /= total;
                first[i] /= total;
                second[i] /= total;
            }
        }

        double mass(double lo, double hi) {
            return at(mass, hi) - at(mass, lo);
        }

        double firstMoment(double lo, double hi) {
            return at(first, hi) - at(first, lo);
        }

        double secondMoment(double lo, double hi) {
            return at(second, hi) - at(second, lo);
        }

        /** The x at which the cumulative mass reaches {@code p}. */
        double quantile(double p) {
            int lo = 0;
            int hi = GRID;
            while (hi - lo > 1) {
                int mid = (lo + hi) >>> 1;
                if (mass[mid] < p) lo = mid;
                else hi = mid;
            }
            double span = mass[hi] - mass[lo];
            double t = span > 0 ? (p - mass[lo]) / span : 0.5;
            return -1 + (lo + t) * STEP;
        }

        private static double at(double[] cumulative, double x) {
            double pos = (Math.clamp(x, -1, 1) + 1) / STEP;
            int i = (int) Math.min(GRID - 1, Math.floor(pos));
            double t = pos - i;
            return cumulative[i] + t * (cumulative[i + 1] - cumulative[i]);
        }
    }
}
