package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;

/**
 * Gathers, scatters and slice updates, including the two in-place writes. MLX arrays are
 * immutable, so an in-place write builds the updated root array lazily and installs it in the
 * target's {@link Root}: every handle on that root sees it, and once nothing else references the
 * old array MLX updates its buffer in place when evaluating. Indices are range-checked on the host
 * (MLX does not check), which evaluates the index tensor.
 */
final class GatherOps extends OpFamily {
    GatherOps(MlxBackend backend) {
        super(backend);
    }

    MlxTensor take(MlxTensor x, MlxTensor indices, int axis) {
        int a = x.shape().normalizeAxis(axis);
        checkIndices("take", indices, x.dims[a], x.shape(), axis);
        return op(t -> {
            MemorySegment xa = dense(t, x);
            MemorySegment ia = indices.array(t);
            return backend.wrap(Mlx.call("take", r -> mlx_take_axis(r, xa, ia, a, s())));
        });
    }

    MlxTensor takeAlongAxis(MlxTensor x, MlxTensor indices, int axis) {
        int a = x.shape().normalizeAxis(axis);
        checkRanks("takeAlongAxis", x, indices);
        checkIndices("takeAlongAxis", indices, x.dims[a], x.shape(), axis);
        return op(t -> {
            MemorySegment xa = dense(t, x);
            MemorySegment ia = indices.array(t);
            return backend.wrap(Mlx.call("take_along_axis", r -> mlx_take_along_axis(r, xa, ia, a, s())));
        });
    }

    MlxTensor putAlongAxis(MlxTensor x, MlxTensor indices, MlxTensor values, int axis) {
        int a = x.shape().normalizeAxis(axis);
        checkRanks("putAlongAxis", x, indices);
        checkIndices("putAlongAxis", indices, x.dims[a], x.shape(), axis);
        return op(t -> backend.wrap(put(t, dense(t, x), indices, values, a, x.dtype)));
    }

    /**
     * {@code x} as a row-contiguous array. MLX's CPU gather reads a column-contiguous
     * {@code as_strided} view (a transposed tensor) in the wrong order, so strided views are
     * copied first; whole roots, the common case (embedding tables, caches), are used as they are.
     */
    private MemorySegment dense(Temps t, MlxTensor x) {
        MemorySegment a = x.array(t);
        if (x.isWholeRoot()) return a;
        return t.call("contiguous", r -> mlx_contiguous(r, a, false, s()));
    }

    /** {@code put_along_axis} of {@code values} (cast to dtype) into {@code xa}; owned by the caller. */
    private MemorySegment put(Temps t, MemorySegment xa, MlxTensor indices, MlxTensor values, int axis, DType dtype) {
        MemorySegment ia = indices.array(t);
        MemorySegment va = cast(t, values.array(t), dtype);
        return Mlx.call("put_along_axis", r -> mlx_put_along_axis(r, xa, ia, va, axis, s()));
    }

    MlxTensor sliceUpdate(MlxTensor x, MlxTensor update, int... starts) {
        checkBlock("sliceUpdate", x, update, starts);
        return op(t -> backend.wrap(sliceUpdate(t, x.array(t), cast(t, update.array(t), x.dtype), starts, update.dims)));
    }

    private MemorySegment sliceUpdate(Temps t, MemorySegment target, MemorySegment update, int[] starts, int[] dims) {
        int[] stops = new int[starts.length];
        int[] ones = new int[starts.length];
        for (int i = 0; i < starts.length; i++) {
            stops[i] = starts[i] + dims[i];
            ones[i] = 1;
        }
        return Mlx.call("slice_update", r -> mlx_slice_update(r, target, update, Mlx.ints(t.arena, starts), starts.length,
                Mlx.ints(t.arena, stops), stops.length, Mlx.ints(t.arena, ones), ones.length, s()));
    }

    void writeSlice(MlxTensor target, MlxTensor update, int... starts) {
        checkBlock("writeSlice", target, update, starts);
        checkWritable("writeSlice", target);
        op(t -> {
            writeBlock(t, target, cast(t, update.array(t), target.dtype), starts, update.dims);
            return null;
        });
    }

    void writeAlongAxis(MlxTensor target, MlxTensor indices, MlxTensor values, int axis) {
        int a = target.shape().normalizeAxis(axis);
        checkRanks("writeAlongAxis", target, indices);
        checkIndices("writeAlongAxis", indices, target.dims[a], target.shape(), axis);
        checkWritable("writeAlongAxis", target);
        op(t -> {
            MemorySegment updated = t.own(put(t, dense(t, target), indices, values, a, target.dtype));
            writeBlock(t, target, updated, new int[target.dims.length], target.dims);
            return null;
        });
    }

    /** Writes {@code block} (target's dtype, shape {@code dims}) at {@code starts} of the view into its root. */
    private void writeBlock(Temps t, MlxTensor target, MemorySegment block, int[] starts, int[] dims) {
        Root root = target.root;
        long count = 1;
        for (int d : dims) count *= d;
        if (count == 0) return;
        int[] rootStarts = boxStarts(target, starts, dims);
        if (rootStarts != null) {
            root.replace(sliceUpdate(t, root.array(), block, rootStarts, dims));
            return;
        }
        // a general strided view: scatter the block's elements at their flat root positions
        int n = Math.toIntExact(count);
        int[] flat = new int[n];
        int[] idx = new int[dims.length];
        for (int i = 0; i < n; i++) {
            long at = target.offset;
            for (int k = 0; k < dims.length; k++) at += (starts[k] + idx[k]) * target.strides[k];
            flat[i] = Math.toIntExact(at);
            for (int k = dims.length - 1; k >= 0 && ++idx[k] == dims[k]; k--) idx[k] = 0;
        }
        MemorySegment positions = t.own(Mlx.checked(mlx_array_new_data(Mlx.structs(), t.arena.allocateFrom(ValueLayout.JAVA_INT, flat),
                Mlx.ints(t.arena, n), 1, Mlx.code(DType.I32)), "write positions"));
        MemorySegment values = t.call("reshape", r -> mlx_reshape(r, block, Mlx.ints(t.arena, n), 1, s()));
        long total = 1;
        for (int d : root.dims) total *= d;
        int size = Math.toIntExact(total);
        MemorySegment rootFlat = t.call("reshape", r -> mlx_reshape(r, root.array(), Mlx.ints(t.arena, size), 1, s()));
        MemorySegment written = t.call("put_along_axis", r -> mlx_put_along_axis(r, rootFlat, positions, values, 0, s()));
        root.replace(Mlx.call("reshape", r -> mlx_reshape(r, written, Mlx.ints(t.arena, root.dims), root.dims.length, s())));
    }

    /**
     * The root coordinates of the block when the view is a box of its root (same rank and
     * row-major root strides, as slices of a root are), else null.
     */
    private static int[] boxStarts(MlxTensor v, int[] starts, int[] dims) {
        int[] rd = v.root.dims;
        if (rd.length != v.dims.length) return null;
        long[] rs = MlxTensor.rowMajorStrides(rd);
        long rest = v.offset;
        int[] out = new int[rd.length];
        for (int k = 0; k < rd.length; k++) {
            if (v.dims[k] > 1 && v.strides[k] != rs[k] || rs[k] == 0) return null;
            long c = rest / rs[k];
            rest -= c * rs[k];
            out[k] = (int) c + starts[k];
            if (out[k] + dims[k] > rd[k] || (int) c + v.dims[k] > rd[k]) return null;
        }
        return rest == 0 ? out : null;
    }

    private static void checkWritable(String what, MlxTensor target) {
        if (target.size() == 0) return; // nothing is written into an empty view
        for (int k = 0; k < target.dims.length; k++) {
            if (target.strides[k] == 0 && target.dims[k] > 1) {
                throw new IllegalArgumentException(what + ": target " + target.shape() + " is a broadcast view and cannot be written");
            }
        }
    }

    private static void checkBlock(String what, MlxTensor x, MlxTensor update, int[] starts) {
        boolean ok = update.dims.length == x.dims.length && starts.length == x.dims.length;
        for (int i = 0; ok && i < starts.length; i++) {
            ok = starts[i] >= 0 && starts[i] + update.dims[i] <= x.dims[i];
        }
        if (!ok) {
            throw new IllegalArgumentException(what + ": update " + update.shape() + " at " + Arrays.toString(starts)
                    + " does not fit in " + x.shape());
        }
    }

    private static void checkRanks(String what, MlxTensor x, MlxTensor indices) {
        if (indices.dims.length != x.dims.length) {
            throw new IllegalArgumentException(what + ": indices " + indices.shape() + " must have the rank of " + x.shape());
        }
    }

    /** Every index must lie in {@code [0, dim)}; reads the (small) index tensor back. */
    private void checkIndices(String what, MlxTensor indices, int dim, Shape of, int axis) {
        if (indices.dtype.isFloating()) {
            throw new IllegalArgumentException(what + ": indices must be an integer dtype, found " + indices.dtype);
        }
        for (int i : backend.toInts(indices)) {
            long v = indices.dtype == DType.U32 ? Integer.toUnsignedLong(i) : i;
            if (v < 0 || v >= dim) {
                throw new IllegalArgumentException(what + ": index " + v + " out of range [0, " + dim + ") on axis " + axis + " of " + of);
            }
        }
    }
}
