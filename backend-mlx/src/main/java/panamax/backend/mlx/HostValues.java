package panamax.backend.mlx;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import panamax.api.tensor.DType;

/**
 * Writes Java values into little-endian host buffers in a dtype's storage format before they are
 * handed to MLX. mlx-c offers no float16/bfloat16 accessors on x86, so 16-bit floats are rounded
 * here (nearest, ties to even) and passed as raw bits.
 */
final class HostValues {
    private HostValues() {
    }

    static void setFloat(MemorySegment s, DType dtype, long i, float v) {
        switch (dtype) {
            case F32 -> s.setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
            case BF16 -> s.setAtIndex(ValueLayout.JAVA_SHORT, i, bf16Bits(v));
            case F16 -> s.setAtIndex(ValueLayout.JAVA_SHORT, i, Float.floatToFloat16(v));
            default -> setInt(s, dtype, i, (int) v);
        }
    }

    /** Integer dtypes: I32 and U32 keep the bits, U8 the low 8 bits, BOOL whether non-zero. */
    static void setInt(MemorySegment s, DType dtype, long i, int v) {
        switch (dtype) {
            case I32, U32 -> s.setAtIndex(ValueLayout.JAVA_INT, i, v);
            case U8 -> s.set(ValueLayout.JAVA_BYTE, i, (byte) v);
            case BOOL -> s.set(ValueLayout.JAVA_BYTE, i, (byte) (v != 0 ? 1 : 0));
            default -> setFloat(s, dtype, i, v);
        }
    }

    /** The bfloat16 bits of {@code v}, rounded to nearest even; NaN stays a quiet NaN. */
    static short bf16Bits(float v) {
        int bits = Float.floatToRawIntBits(v);
        if (Float.isNaN(v)) return (short) ((bits >>> 16) | 0x40);
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }

    /** {@code v} rounded to what {@code dtype} holds (identity for F32 and integer types). */
    static float round(float v, DType dtype) {
        return switch (dtype) {
            case BF16 -> Float.intBitsToFloat(bf16Bits(v) << 16);
            case F16 -> Float.float16ToFloat(Float.floatToFloat16(v));
            default -> v;
        };
    }
}
