package panamax.example.fp8;

/**
 * The OCP FP8 E4M3 ("fn") format: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities,
 * one NaN pattern per sign ({@code S.1111.111}); largest finite 448, smallest subnormal 2^-9.
 * Encoding rounds to nearest, ties to even, and saturates at ±448. Stateless.
 */
public final class E4M3 {
    /** The largest finite magnitude. */
    public static final float MAX = 448f;
    /** The smallest normal magnitude, 2^-6. */
    public static final float MIN_NORMAL = 0x1p-6f;
    /** The spacing of subnormals, 2^-9. */
    public static final float SUBNORMAL_STEP = 0x1p-9f;
    /** The code of positive NaN. */
    public static final int NAN = 0x7F;

    private static final int MAX_CODE = 0x7E; // S.1111.110 = 448

    private E4M3() {
    }

    /** The 8-bit code (0..255) of {@code v}, rounded to nearest even and saturated to ±448. */
    public static int encode(float v) {
        if (Float.isNaN(v)) return NAN;
        int sign = (Float.floatToRawIntBits(v) >>> 31) << 7;
        float a = Math.abs(v);
        if (a >= MAX) return sign | MAX_CODE;
        if (a < MIN_NORMAL) {
            // Subnormals are multiples of 2^-9; a result of 8 steps is exactly the smallest normal (code 8).
            return sign | (int) Math.rint(a / SUBNORMAL_STEP);
        }
        int exponent = Math.getExponent(a);                     // -6 .. 8
        float mantissa = a / Math.scalb(1f, exponent) - 1f;     // [0, 1), exact
        int m = (int) Math.rint(mantissa * 8f);                 // ties to even
        int e = exponent + 7;
        if (m == 8) {
            m = 0;
            e++;
        }
        int code = e << 3 | m;
        return sign | Math.min(code, MAX_CODE);
    }

    /** The value of an 8-bit code; {@code S.1111.111} is NaN. */
    public static float decode(int code) {
        int c = code & 0xFF;
        float sign = (c & 0x80) != 0 ? -1f : 1f;
        int e = (c >>> 3) & 0xF;
        int m = c & 7;
        if (e == 15 && m == 7) return Float.NaN;
        if (e == 0) return sign * m * SUBNORMAL_STEP;
        return sign * Math.scalb(1f + m / 8f, e - 7);
    }
}
