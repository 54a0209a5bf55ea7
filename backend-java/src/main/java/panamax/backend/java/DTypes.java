package panamax.backend.java;

import panamax.api.tensor.DType;

/** Dtype rules of {@link panamax.api.tensor.Ops}: promotion and the rounding of f32 results. */
final class DTypes {
    private DTypes() {
    }

    /**
     * The dtype of a binary op: equal stays; floating beats integer; F32 beats BF16/F16; BF16 with
     * F16 gives F32; between integers the wider wins (I32 over U32, any over U8 and BOOL).
     */
    static DType promote(DType a, DType b) {
        if (a == b) return a;
        if (a.isFloating() && !b.isFloating()) return a;
        if (b.isFloating() && !a.isFloating()) return b;
        if (a.isFloating()) return DType.F32; // two different floating types
        return integerRank(a) >= integerRank(b) ? a : b;
    }

    private static int integerRank(DType t) {
        return switch (t) {
            case BOOL -> 0;
            case U8 -> 1;
            case U32 -> 2;
            case I32 -> 3;
            default -> throw new IllegalArgumentException("not an integer dtype: " + t);
        };
    }

    /** {@code v} rounded to what {@code t} can hold (identity for F32). */
    static float round(float v, DType t) {
        return switch (t) {
            case BF16 -> panamax.backend.java.kernel.Floats.roundToBf16(v);
            case F16 -> panamax.backend.java.kernel.Floats.roundToF16(v);
            default -> v;
        };
    }

    /** Integer value as stored by {@code t}: I32 wraps, U32 keeps the low 32 bits, U8 the low 8, BOOL non-zero. */
    static long wrap(long v, DType t) {
        return switch (t) {
            case I32 -> (int) v;
            case U32 -> v & 0xffffffffL;
            case U8 -> v & 0xffL;
            case BOOL -> v != 0 ? 1 : 0;
            default -> v;
        };
    }

    /** A float converted to an integer dtype: truncation toward zero, NaN to 0. */
    static long fromFloat(double v, DType t) {
        if (t == DType.BOOL) return v != 0 ? 1 : 0;
        return wrap((long) v, t);
    }
}
