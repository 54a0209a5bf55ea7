package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import panamax.api.tensor.DType;
import panamax.backend.mlx.c.mlx_array_;
import panamax.backend.mlx.c.mlx_optional_dtype_;
import panamax.backend.mlx.c.mlx_optional_float_;
import panamax.backend.mlx.c.mlx_optional_int_;

/**
 * Thin helpers over the generated mlx-c calls. An mlx-c array is an 8-byte struct passed by value;
 * here it is a {@link MemorySegment} holding that struct, allocated in its own automatic arena (so
 * the 8 bytes follow the Java object), while the MLX array it refers to is freed explicitly with
 * {@link #free}: whoever receives a segment from {@link #call} owns it.
 *
 * <p>Threading: MLX's graph building is not thread-safe, so every mlx-c call runs under
 * {@link #LOCK}, which callers hold for a whole op.
 */
final class Mlx {
    /** Serializes every mlx-c call in the process (MLX's state is process-wide). */
    static final ReentrantLock LOCK = new ReentrantLock();
    /** An mlx-c array struct whose ctx is NULL: "no array" for parameters that may be null. */
    static final MemorySegment NO_ARRAY = Arena.global().allocate(mlx_array_.layout());

    private Mlx() {
    }

    /** An mlx-c call writing its result into {@code res}; returns mlx-c's status. */
    @FunctionalInterface
    interface Call {
        int run(MemorySegment res);
    }

    /** A fresh, empty result slot (ctx NULL). */
    static MemorySegment slot() {
        return Arena.ofAuto().allocate(mlx_array_.layout());
    }

    /** An allocator for mlx-c functions that return a struct by value (the struct outlives the call). */
    static SegmentAllocator structs() {
        return (size, align) -> Arena.ofAuto().allocate(size, align);
    }

    /** Runs {@code call}, throwing MLX's message on failure; the new array is owned by the caller. */
    static MemorySegment call(String what, Call call) {
        MemorySegment res = slot();
        int status = call.run(res);
        if (status != 0) {
            free(res);
            MlxErrors.check(status, what);
        }
        return res;
    }

    /**
     * {@code array} as returned by an mlx-c constructor that reports failure through the error
     * handler and an empty array (e.g. {@code mlx_array_new_data}): throws MLX's message when empty.
     */
    static MemorySegment checked(MemorySegment array, String what) {
        if (array.get(ValueLayout.ADDRESS, 0).equals(MemorySegment.NULL)) MlxErrors.check(1, what);
        return array;
    }

    /** Frees the MLX array of an owned slot (a no-op for an empty slot). */
    static void free(MemorySegment array) {
        if (!array.get(ValueLayout.ADDRESS, 0).equals(MemorySegment.NULL)) mlx_array_free(array);
    }

    static int[] shape(MemorySegment array) {
        int n = (int) mlx_array_ndim(array);
        if (n == 0) return new int[0];
        return mlx_array_shape(array).reinterpret(4L * n).toArray(ValueLayout.JAVA_INT);
    }

    static MemorySegment ints(Arena arena, int... values) {
        return values.length == 0 ? arena.allocate(4) : arena.allocateFrom(ValueLayout.JAVA_INT, values);
    }

    static MemorySegment longs(Arena arena, long... values) {
        return values.length == 0 ? arena.allocate(8) : arena.allocateFrom(ValueLayout.JAVA_LONG, values);
    }

    static MemorySegment optionalInt(Arena arena, int value) {
        MemorySegment o = arena.allocate(mlx_optional_int_.layout());
        mlx_optional_int_.value(o, value);
        mlx_optional_int_.has_value(o, true);
        return o;
    }

    static MemorySegment optionalFloat(Arena arena, Float value) {
        MemorySegment o = arena.allocate(mlx_optional_float_.layout());
        if (value != null) {
            mlx_optional_float_.value(o, value);
            mlx_optional_float_.has_value(o, true);
        }
        return o;
    }

    static MemorySegment optionalDtype(Arena arena, DType dtype) {
        MemorySegment o = arena.allocate(mlx_optional_dtype_.layout());
        mlx_optional_dtype_.value(o, code(dtype));
        mlx_optional_dtype_.has_value(o, true);
        return o;
    }

    /** A new mlx-c vector of the arrays (borrowed); the caller frees it with {@code mlx_vector_array_free}. */
    static MemorySegment vector(Arena arena, List<MemorySegment> arrays) {
        MemorySegment data = arena.allocate(mlx_array_.layout(), Math.max(1, arrays.size()));
        for (int i = 0; i < arrays.size(); i++) {
            MemorySegment.copy(arrays.get(i), 0, data, i * mlx_array_.layout().byteSize(), mlx_array_.layout().byteSize());
        }
        return mlx_vector_array_new_data(structs(), data, arrays.size());
    }

    static int code(DType dtype) {
        return switch (dtype) {
            case F32 -> MLX_FLOAT32();
            case BF16 -> MLX_BFLOAT16();
            case F16 -> MLX_FLOAT16();
            case I32 -> MLX_INT32();
            case U32 -> MLX_UINT32();
            case U8 -> MLX_UINT8();
            case BOOL -> MLX_BOOL();
        };
    }

    /** The panamax dtype of an MLX array, or an exception naming MLX's dtype code. */
    static DType dtype(MemorySegment array) {
        int c = mlx_array_dtype(array);
        for (DType d : DType.values()) if (code(d) == c) return d;
        throw new MlxException("MLX returned an array of dtype code " + c + ", which panamax does not store");
    }
}
