package panamax.backend.java.kernel;

/** Scalar special functions the JDK lacks, accurate to double precision or close to it. */
public final class ScalarMath {
    private static final double TWO_OVER_SQRT_PI = 1.1283791670955126;
    private static final double SQRT_2_OVER_PI = 0.7978845608028654;

    private ScalarMath() {
    }

    /**
     * The error function. Uses {@code erf(x) = 2x/√π·e^{-x²}·Σ (2x²)^n / (1·3···(2n+1))}, a series
     * of positive terms (no cancellation), and ±1 beyond |x| = 6 where erf is 1 to double precision.
     */
    public static double erf(double x) {
        double ax = Math.abs(x);
        if (ax >= 6) return Math.copySign(1.0, x);
        if (Double.isNaN(x)) return x;
        double x2 = ax * ax;
        double term = 1;
        double sum = 1;
        for (int n = 1; n < 200; n++) {
            term *= 2 * x2 / (2 * n + 1);
            sum += term;
            if (term < sum * 1e-17) break;
        }
        return Math.copySign(TWO_OVER_SQRT_PI * ax * Math.exp(-x2) * sum, x);
    }

    /** 1 − erf(x) for x ≥ 0 without cancellation (continued fraction), used for GELU of negative inputs. */
    public static double erfc(double x) {
        if (x < 2) return 1 - erf(x);
        // Lentz continued fraction: erfc(x) = e^{-x²}/√π · 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...))))
        double f = x;
        double c = x;
        double d = 0;
        double tiny = 1e-300;
        for (int n = 1; n < 500; n++) {
            double an = n / 2.0;
            d = x + an * d;
            d = d == 0 ? tiny : 1 / d;
            c = x + an / c;
            if (c == 0) c = tiny;
            double delta = c * d;
            f *= delta;
            if (Math.abs(delta - 1) < 1e-16) break;
        }
        return Math.exp(-x * x) / (f * Math.sqrt(Math.PI));
    }

    /** x·Φ(x) with the exact error function. */
    public static double gelu(double x) {
        double z = x / Math.sqrt(2);
        double cdf = z >= 0 ? 1 - 0.5 * erfc(z) : 0.5 * erfc(-z);
        return x * cdf;
    }

    /** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). */
    public static double geluTanh(double x) {
        return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)));
    }

    public static double sigmoid(double x) {
        return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
    }
}
