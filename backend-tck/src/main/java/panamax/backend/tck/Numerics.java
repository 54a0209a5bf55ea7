package panamax.backend.tck;

import panamax.api.tensor.DType;

/**
 * Rounding, ulps and dtype promotion as the api specifies them, computed independently of any
 * backend. Stateless; thread-safe.
 */
public final class Numerics {
    private Numerics() {
    }

    /** {@code v} rounded to f32, then to bf16 (nearest, ties to even); NaN stays NaN. */
    public static float toBf16(double v) {
        float f = (float) v;
        if (Float.isNaN(f)) return f;
        int bits = Float.floatToRawIntBits(f);
        int rounded = (bits + 0x7FFF + ((bits >>> 16) & 1)) & 0xFFFF0000;
        return Float.intBitsToFloat(rounded);
    }

    /** {@code v} rounded to f32, then to f16 (nearest, ties to even). */
    public static float toF16(double v) {
        return Float.float16ToFloat(Float.floatToFloat16((float) v));
    }

    /** The bf16 bit pattern of a value that is already exactly a bf16. */
    public static int bf16Bits(float bf16Value) {
        return Float.floatToRawIntBits(bf16Value) >>> 16;
    }

    /**
     * {@code v} as stored in {@code dtype}: floating types round to nearest even; I32 truncates
     * toward zero (the api's float-to-int rule); U8 keeps the low 8 bits; BOOL is 1 for non-zero.
     */
    public static double round(double v, DType dtype) {
        return switch (dtype) {
            case F32 -> (float) v;
            case BF16 -> toBf16(v);
            case F16 -> toF16(v);
            case I32 -> (int) v;
            case U32 -> Integer.toUnsignedLong((int) (long) v);
            case U8 -> ((long) v) & 0xFF;
            case BOOL -> v != 0 ? 1 : 0;
        };
    }

    /** Rounds every element to {@code dtype}, into a new array. */
    public static double[] round(double[] values, DType dtype) {
        double[] out = new double[values.length];
        for (int i = 0; i < values.length; i++) out[i] = round(values[i], dtype);
        return out;
    }

    /** The spacing of {@code dtype} values next to {@code |v|}; 0 for integer types. */
    public static double ulp(double v, DType dtype) {
        float a = Math.abs((float) v);
        return switch (dtype) {
            case F32 -> Math.ulp(a);
            // 7 stored mantissa bits against f32's 23; same exponent range as f32
            case BF16 -> Math.ulp(a) * 65536.0;
            case F16 -> Math.max(Math.scalb(1.0, Math.getExponent(Math.max(a, 0x1p-14f)) - 10), 0x1p-24);
            default -> 0.0;
        };
    }

    /** The api's binary-op promotion: equal stays, floating beats integer, F32 beats BF16/F16, BF16 with F16 gives F32. */
    public static DType promote(DType a, DType b) {
        if (a == b) return a;
        if (a.isFloating() && !b.isFloating()) return a;
        if (b.isFloating() && !a.isFloating()) return b;
        if (a.isFloating()) return DType.F32;
        throw new IllegalArgumentException("the api does not define promotion of " + a + " with " + b);
    }

    /** The standard normal CDF Φ(x), accurate to about 1e-14 relative, also far in the tails. */
    public static double normalCdf(double x) {
        return 0.5 * erfc(-x / Math.sqrt(2.0));
    }

    /** The error function. */
    public static double erf(double x) {
        return 1.0 - erfc(x);
    }

    /** The complementary error function, with relative accuracy kept in the upper tail. */
    public static double erfc(double x) {
        if (x < 0) return 2.0 - erfc(-x);
        if (x < 3.0) {
            // Maclaurin series of erf; terms peak near 170 at x = 3, so ~1e-13 absolute is kept
            double term = x;
            double sum = x;
            double x2 = x * x;
            for (int n = 1; n < 200; n++) {
                term *= -x2 / n;
                double add = term / (2 * n + 1);
                sum += add;
                if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
            }
            return 1.0 - 2.0 / Math.sqrt(Math.PI) * sum;
        }
        // continued fraction erfc(x) = exp(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
        double f = x;
        for (int k = 80; k >= 1; k--) {
            f = x + (k / 2.0) / f;
        }
        return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
    }
}
