package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;
import panamax.api.tensor.DType;

/**
 * What every op family shares: running an op under the lock with its {@link Temps}, dtype casts,
 * scalars, and turning the final MLX array into a caller-owned tensor. Floating math follows the
 * api rule "computed in f32": 16-bit inputs are widened with {@link #f32} and results rounded
 * once to their dtype by {@link #result}.
 */
abstract class OpFamily {
    final MlxBackend backend;

    OpFamily(MlxBackend backend) {
        this.backend = backend;
    }

    final MemorySegment s() {
        return backend.stream();
    }

    /** Runs {@code body} under {@link Mlx#LOCK} with fresh temporaries, freed afterwards. */
    final <T> T op(Function<Temps, T> body) {
        return backend.locked(() -> {
            try (Temps temps = new Temps()) {
                return body.apply(temps);
            }
        });
    }

    /** {@code a} converted to {@code dtype} (a temporary; {@code a} itself when it already is). */
    final MemorySegment cast(Temps t, MemorySegment a, DType dtype) {
        if (Mlx.dtype(a) == dtype) return a;
        return t.call("astype", r -> mlx_astype(r, a, Mlx.code(dtype), s()));
    }

    /** {@code a} widened to F32 when floating; integer arrays are returned unchanged. */
    final MemorySegment f32(Temps t, MemorySegment a) {
        DType d = Mlx.dtype(a);
        return d.isFloating() ? cast(t, a, DType.F32) : a;
    }

    /** A new tensor holding {@code a} converted to {@code dtype}, owned by the caller. */
    final MlxTensor result(MemorySegment a, DType dtype) {
        return backend.wrap(Mlx.call("astype", r -> mlx_astype(r, a, Mlx.code(dtype), s())));
    }

    /** A scalar array (a temporary) of {@code value} in {@code dtype}. */
    final MemorySegment scalar(Temps t, double value, DType dtype) {
        MemorySegment a = t.own(dtype.isFloating() || !isWhole(value)
                ? mlx_array_new_float32(Mlx.structs(), (float) value)
                : mlx_array_new_int(Mlx.structs(), (int) (long) value));
        return cast(t, a, dtype);
    }

    static boolean isWhole(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1L << 31;
    }

    /** The promoted dtype of a binary op, as {@link panamax.api.tensor.Ops} defines it. */
    static DType promote(DType a, DType b) {
        if (a == b) return a;
        if (a.isFloating() && !b.isFloating()) return a;
        if (b.isFloating() && !a.isFloating()) return b;
        if (a.isFloating()) return DType.F32;
        return integerRank(a) >= integerRank(b) ? a : b;
    }

    private static int integerRank(DType t) {
        return switch (t) {
            case BOOL -> 0;
            case U8 -> 1;
            case U32 -> 2;
            default -> 3;
        };
    }
}
