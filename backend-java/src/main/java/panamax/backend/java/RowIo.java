package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.Floats;

/**
 * Reads and writes runs of elements ({@code base + i·stride}, in elements) of any dtype as f32 or
 * as long. Stride 0 broadcasts one element. Stateless.
 */
final class RowIo {
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;

    private RowIo() {
    }

    static float getFloat(MemorySegment s, DType t, long i) {
        return switch (t) {
            case F32 -> s.getAtIndex(F32, i);
            case BF16 -> Floats.bf16ToFloat(s.getAtIndex(I16, i));
            case F16 -> Float.float16ToFloat(s.getAtIndex(I16, i));
            case I32 -> s.getAtIndex(I32, i);
            case U32 -> (float) (s.getAtIndex(I32, i) & 0xffffffffL);
            case U8 -> s.get(I8, i) & 0xff;
            case BOOL -> s.get(I8, i) != 0 ? 1f : 0f;
        };
    }

    static long getLong(MemorySegment s, DType t, long i) {
        return switch (t) {
            case I32 -> s.getAtIndex(I32, i);
            case U32 -> s.getAtIndex(I32, i) & 0xffffffffL;
            case U8 -> s.get(I8, i) & 0xff;
            case BOOL -> s.get(I8, i) != 0 ? 1 : 0;
            default -> (long) getFloat(s, t, i);
        };
    }

    /** Stores {@code v} rounded (floating) or truncated (integer) to {@code t}. */
    static void setFloat(MemorySegment s, DType t, long i, float v) {
        switch (t) {
            case F32 -> s.setAtIndex(F32, i, v);
            case BF16 -> s.setAtIndex(I16, i, Floats.floatToBf16(v));
            case F16 -> s.setAtIndex(I16, i, Float.floatToFloat16(v));
            default -> setLong(s, t, i, DTypes.fromFloat(v, t));
        }
    }

    static void setLong(MemorySegment s, DType t, long i, long v) {
        switch (t) {
            case I32, U32 -> s.setAtIndex(I32, i, (int) v);
            case U8 -> s.set(I8, i, (byte) v);
            case BOOL -> s.set(I8, i, (byte) (v != 0 ? 1 : 0));
            default -> setFloat(s, t, i, (float) v);
        }
    }

    static void load(MemorySegment s, DType t, long base, long stride, int n, float[] dst) {
        load(s, t, base, stride, n, dst, 0);
    }

    /** {@link #load(MemorySegment, DType, long, long, int, float[])} into {@code dst} from index {@code at}. */
    static void load(MemorySegment s, DType t, long base, long stride, int n, float[] dst, int at) {
        if (stride == 1 && t == DType.F32) {
            MemorySegment.copy(s, F32, base * 4, dst, at, n);
        } else if (stride == 1 && t == DType.BF16) {
            Floats.bf16ToFloats(s, base * 2, n, dst, at);
        } else if (stride == 0) {
            java.util.Arrays.fill(dst, at, at + n, getFloat(s, t, base));
        } else {
            for (int i = 0; i < n; i++) dst[at + i] = getFloat(s, t, base + i * stride);
        }
    }

    static void store(MemorySegment s, DType t, long base, long stride, int n, float[] src) {
        store(s, t, base, stride, n, src, 0);
    }

    /** {@link #store(MemorySegment, DType, long, long, int, float[])} from {@code src} at index {@code at}. */
    static void store(MemorySegment s, DType t, long base, long stride, int n, float[] src, int at) {
        if (stride == 1 && t == DType.F32) {
            MemorySegment.copy(src, at, s, F32, base * 4, n);
        } else if (stride == 1 && t == DType.BF16) {
            for (int i = 0; i < n; i++) s.setAtIndex(I16, base + i, Floats.floatToBf16(src[at + i]));
        } else {
            for (int i = 0; i < n; i++) setFloat(s, t, base + i * stride, src[at + i]);
        }
    }

    static void load(MemorySegment s, DType t, long base, long stride, int n, long[] dst) {
        if (stride == 0) {
            java.util.Arrays.fill(dst, 0, n, getLong(s, t, base));
        } else {
            for (int i = 0; i < n; i++) dst[i] = getLong(s, t, base + i * stride);
        }
    }

    static void store(MemorySegment s, DType t, long base, long stride, int n, long[] src) {
        for (int i = 0; i < n; i++) setLong(s, t, base + i * stride, DTypes.wrap(src[i], t));
    }

    /** Copies {@code n} elements of {@code bytes} each between equal-dtype runs. */
    static void copyRaw(MemorySegment src, long srcBase, long srcStride, MemorySegment dst, long dstBase, long dstStride,
                        int n, int bytes) {
        if (srcStride == 1 && dstStride == 1) {
            MemorySegment.copy(src, srcBase * bytes, dst, dstBase * bytes, (long) n * bytes);
            return;
        }
        switch (bytes) {
            case 4 -> {
                for (int i = 0; i < n; i++) dst.setAtIndex(I32, dstBase + i * dstStride, src.getAtIndex(I32, srcBase + i * srcStride));
            }
            case 2 -> {
                for (int i = 0; i < n; i++) dst.setAtIndex(I16, dstBase + i * dstStride, src.getAtIndex(I16, srcBase + i * srcStride));
            }
            default -> {
                for (int i = 0; i < n; i++) dst.set(I8, dstBase + i * dstStride, src.get(I8, srcBase + i * srcStride));
            }
        }
    }
}
