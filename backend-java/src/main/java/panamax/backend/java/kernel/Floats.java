package panamax.backend.java.kernel;

/**
 * Scalar conversions between f32 and the 16-bit storage formats. bf16 is the top half of an f32;
 * storing rounds to nearest with ties to even and keeps NaN a (quiet) NaN.
 */
public final class Floats {
    private Floats() {
    }

    /** The f32 value of a bf16 bit pattern (exact). */
    public static float bf16ToFloat(short bits) {
        return Float.intBitsToFloat(bits << 16);
    }

    /** The nearest bf16 bit pattern to {@code value}, ties to even. */
    public static short floatToBf16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7fffffff) > 0x7f800000) return (short) ((bits >>> 16) | 0x40); // quiet NaN
        int rounded = bits + 0x7fff + ((bits >>> 16) & 1);
        return (short) (rounded >>> 16);
    }

    /** {@code value} rounded to bf16 and widened back. */
    public static float roundToBf16(float value) {
        return bf16ToFloat(floatToBf16(value));
    }

    /** {@code value} rounded to f16 and widened back. */
    public static float roundToF16(float value) {
        return Float.float16ToFloat(Float.floatToFloat16(value));
    }
}
