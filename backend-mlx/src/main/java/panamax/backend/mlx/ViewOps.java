package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;

/**
 * Shape ops. Reshape (of a contiguous view), transpose, slice and broadcast are new handles on
 * the same {@link Root} (no MLX call at all); copy, concat, astype and reshape of a strided view
 * build new MLX arrays. Inputs are borrowed; results owned by the caller.
 */
final class ViewOps extends OpFamily {
    ViewOps(MlxBackend backend) {
        super(backend);
    }

    MlxTensor reshape(MlxTensor x, Shape shape) {
        if (shape.size() != x.size()) {
            throw new IllegalArgumentException("reshape: cannot reshape " + x.shape() + " (" + x.size() + " elements) to "
                    + shape + " (" + shape.size() + " elements)");
        }
        int[] dims = shape.dims();
        if (x.isContiguous()) return x.view(dims, MlxTensor.rowMajorStrides(dims), x.offset);
        return op(t -> {
            MemorySegment a = x.array(t);
            return backend.wrap(Mlx.call("reshape", r -> mlx_reshape(r, a, Mlx.ints(t.arena, dims), dims.length, s())));
        });
    }

    MlxTensor transpose(MlxTensor x, int... axes) {
        int rank = x.dims.length;
        if (axes.length != rank) {
            throw new IllegalArgumentException("transpose: expected " + rank + " axes for " + x.shape() + ", found " + Arrays.toString(axes));
        }
        int[] dims = new int[rank];
        long[] strides = new long[rank];
        boolean[] seen = new boolean[rank];
        for (int i = 0; i < rank; i++) {
            int a = x.shape().normalizeAxis(axes[i]);
            if (seen[a]) throw new IllegalArgumentException("transpose: axis " + axes[i] + " repeated in " + Arrays.toString(axes));
            seen[a] = true;
            dims[i] = x.dims[a];
            strides[i] = x.strides[a];
        }
        return x.view(dims, strides, x.offset);
    }

    MlxTensor slice(MlxTensor x, int axis, int start, int end) {
        int a = x.shape().normalizeAxis(axis);
        if (start < 0 || start > end || end > x.dims[a]) {
            throw new IllegalArgumentException("slice: expected 0 <= start <= end <= " + x.dims[a] + " on axis " + axis
                    + " of " + x.shape() + ", found [" + start + ", " + end + ")");
        }
        int[] dims = x.dims.clone();
        dims[a] = end - start;
        return x.view(dims, x.strides.clone(), x.offset + (long) start * x.strides[a]);
    }

    MlxTensor broadcastTo(MlxTensor x, Shape shape) {
        int[] target = shape.dims();
        int extra = target.length - x.dims.length;
        if (extra < 0) throw new IllegalArgumentException("broadcastTo: cannot broadcast " + x.shape() + " to " + shape);
        long[] strides = new long[target.length];
        for (int i = 0; i < x.dims.length; i++) {
            int d = x.dims[i];
            if (d == target[extra + i]) strides[extra + i] = x.strides[i];
            else if (d == 1) strides[extra + i] = 0;
            else throw new IllegalArgumentException("broadcastTo: cannot broadcast " + x.shape() + " to " + shape);
        }
        return x.view(target, strides, x.offset);
    }

    MlxTensor copy(MlxTensor x) {
        return op(t -> {
            MemorySegment a = x.array(t);
            return backend.wrap(Mlx.call("copy", r -> mlx_copy(r, a, s())));
        });
    }

    MlxTensor concat(List<MlxTensor> xs, int axis) {
        if (xs.isEmpty()) throw new IllegalArgumentException("concat: expected at least one tensor, found none");
        MlxTensor first = xs.get(0);
        int a = first.shape().normalizeAxis(axis);
        for (MlxTensor x : xs) {
            if (x.dtype != first.dtype) {
                throw new IllegalArgumentException("concat: dtypes differ: " + first.dtype + " and " + x.dtype);
            }
            boolean ok = x.dims.length == first.dims.length;
            for (int i = 0; ok && i < x.dims.length; i++) ok = i == a || x.dims[i] == first.dims[i];
            if (!ok) {
                throw new IllegalArgumentException("concat: shapes " + first.shape() + " and " + x.shape()
                        + " differ off axis " + axis);
            }
        }
        return op(t -> {
            List<MemorySegment> arrays = new ArrayList<>();
            for (MlxTensor x : xs) arrays.add(x.array(t));
            MemorySegment vector = Mlx.vector(t.arena, arrays);
            try {
                return backend.wrap(Mlx.call("concatenate", r -> mlx_concatenate_axis(r, vector, a, s())));
            } finally {
                mlx_vector_array_free(vector);
            }
        });
    }

    MlxTensor astype(MlxTensor x, DType dtype) {
        return op(t -> result(x.array(t), dtype));
    }

    /** The numpy broadcast of two shapes, or an exception naming both. */
    static int[] broadcastShape(String what, int[] a, int[] b) {
        int rank = Math.max(a.length, b.length);
        int[] out = new int[rank];
        for (int i = 0; i < rank; i++) {
            int da = i < rank - a.length ? 1 : a[i - (rank - a.length)];
            int db = i < rank - b.length ? 1 : b[i - (rank - b.length)];
            if (da != db && da != 1 && db != 1) {
                throw new IllegalArgumentException(what + ": shapes " + Shape.of(a) + " and " + Shape.of(b) + " do not broadcast");
            }
            out[i] = da == 1 ? db : da;
        }
        return out;
    }
}
