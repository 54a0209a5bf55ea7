package panamax.kv.codecs.internal;

import panamax.api.tensor.DType;

/** Unit roundoffs of the floating dtypes, for the reconstruction bounds codecs declare. */
public final class Rounding {
    private Rounding() {
    }

    /** Half the spacing of {@code dtype} at 1: the largest relative error of rounding a normal value to it. */
    public static double unitRoundoff(DType dtype) {
        return switch (dtype) {
            case F32 -> 0x1p-24;
            case BF16 -> 0x1p-8;
            case F16 -> 0x1p-11;
            default -> throw new IllegalArgumentException("not a floating dtype: " + dtype);
        };
    }

    /** Significand bits of {@code dtype} (implicit bit included). */
    public static int precision(DType dtype) {
        return switch (dtype) {
            case F32 -> 24;
            case BF16 -> 8;
            case F16 -> 11;
            default -> throw new IllegalArgumentException("not a floating dtype: " + dtype);
        };
    }
}
