package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.MemorySegment;
import panamax.api.tensor.DType;
import panamax.api.tensor.Reduction;
import panamax.api.tensor.TopK;

/** Reductions, arg-max, top-k, softmax and matmul; floating inputs are reduced in f32. */
final class ReduceOps extends OpFamily {
    ReduceOps(MlxBackend backend) {
        super(backend);
    }

    MlxTensor reduce(Reduction op, MlxTensor x, int axis, boolean keepDims) {
        int a = x.shape().normalizeAxis(axis);
        if (x.dims[a] == 0 && (op == Reduction.MAX || op == Reduction.MIN || op == Reduction.MEAN)) {
            throw new IllegalArgumentException(op + ": axis " + axis + " of " + x.shape() + " is empty");
        }
        if (x.size() == 0) return zeros(reducedDims(x.dims, a, keepDims), x.dtype); // sums of nothing; no rows to reduce
        return op(t -> {
            MemorySegment in = x.dtype.isFloating() ? cast(t, x.array(t), DType.F32)
                    : cast(t, x.array(t), x.dtype == DType.U32 ? DType.U32 : DType.I32);
            MemorySegment out = t.call("reduce", r -> switch (op) {
                case SUM -> mlx_sum_axis(r, in, a, keepDims, s());
                case MEAN -> mlx_mean_axis(r, in, a, keepDims, s());
                case MAX -> mlx_max_axis(r, in, a, keepDims, s());
                case MIN -> mlx_min_axis(r, in, a, keepDims, s());
            });
            return result(out, x.dtype);
        });
    }

    MlxTensor argmax(MlxTensor x, int axis, boolean keepDims) {
        int a = x.shape().normalizeAxis(axis);
        if (x.dims[a] == 0) throw new IllegalArgumentException("argmax: axis " + axis + " of " + x.shape() + " is empty");
        if (x.size() == 0) return zeros(reducedDims(x.dims, a, keepDims), DType.I32);
        return op(t -> {
            MemorySegment in = f32(t, x.array(t));
            MemorySegment idx = t.call("argmax", r -> mlx_argmax_axis(r, in, a, keepDims, s()));
            return result(idx, DType.I32);
        });
    }

    /** The k largest along the last axis: a stable ascending sort of the negated values keeps ties in index order. */
    TopK topK(MlxTensor x, int k) {
        if (x.dims.length == 0) throw new IllegalArgumentException("topK: expected at least one axis, found a scalar");
        int len = x.dims[x.dims.length - 1];
        if (k < 0 || k > len) throw new IllegalArgumentException("topK: expected 0 <= k <= " + len + " for " + x.shape() + ", found " + k);
        if (x.size() == 0 || k == 0) {
            // MLX's argsort divides by the row length: empty inputs never reach it
            int[] dims = x.dims.clone();
            dims[dims.length - 1] = k;
            MlxTensor values = zeros(dims, x.dtype);
            return new TopK(values, zeros(dims, DType.I32));
        }
        return op(t -> {
            MemorySegment xa = x.array(t);
            // int64 keeps every I32/U32 value exact (and negatable) where f32 would round
            MemorySegment keys = x.dtype.isFloating() ? cast(t, xa, DType.F32)
                    : t.call("astype", r -> mlx_astype(r, xa, MLX_INT64(), s()));
            MemorySegment negated = t.call("negative", r -> mlx_negative(r, keys, s()));
            MemorySegment order = t.call("argsort", r -> mlx_argsort_axis(r, negated, -1, s()));
            int rank = x.dims.length;
            int[] start = new int[rank];
            int[] stop = x.dims.clone();
            stop[rank - 1] = k;
            int[] step = new int[rank];
            java.util.Arrays.fill(step, 1);
            MemorySegment first = t.call("slice", r -> mlx_slice(r, order, Mlx.ints(t.arena, start), rank,
                    Mlx.ints(t.arena, stop), rank, Mlx.ints(t.arena, step), rank, s()));
            MemorySegment values = t.call("take_along_axis", r -> mlx_take_along_axis(r, xa, first, rank - 1, s()));
            MlxTensor v = result(values, x.dtype);
            try {
                return new TopK(v, result(first, DType.I32));
            } catch (RuntimeException e) {
                v.close();
                throw e;
            }
        });
    }

    MlxTensor softmax(MlxTensor x, int axis) {
        int a = x.shape().normalizeAxis(axis);
        if (x.size() == 0) return zeros(x.dims, x.dtype.isFloating() ? x.dtype : DType.F32);
        return op(t -> {
            MemorySegment in = cast(t, x.array(t), DType.F32);
            MemorySegment out = t.call("softmax", r -> mlx_softmax_axis(r, in, a, true, s()));
            return result(out, x.dtype.isFloating() ? x.dtype : DType.F32);
        });
    }

    private MlxTensor zeros(int[] dims, DType dtype) {
        return op(t -> backend.wrap(Mlx.call("zeros", r -> mlx_zeros(r, Mlx.ints(t.arena, dims), dims.length, Mlx.code(dtype), s()))));
    }

    private static int[] reducedDims(int[] dims, int axis, boolean keepDims) {
        int[] out = new int[keepDims ? dims.length : dims.length - 1];
        for (int i = 0, j = 0; i < dims.length; i++) {
            if (i == axis) {
                if (keepDims) out[j++] = 1;
            } else {
                out[j++] = dims[i];
            }
        }
        return out;
    }

    MlxTensor matmul(MlxTensor a, MlxTensor b) {
        if (a.dims.length < 2 || b.dims.length < 2) {
            throw new IllegalArgumentException("matmul: expected operands of rank >= 2, found " + a.shape() + " and " + b.shape());
        }
        if (a.dims[a.dims.length - 1] != b.dims[b.dims.length - 2]) {
            throw new IllegalArgumentException("matmul: inner dimensions differ: " + a.shape() + " × " + b.shape());
        }
        int[] batchA = java.util.Arrays.copyOf(a.dims, a.dims.length - 2);
        int[] batchB = java.util.Arrays.copyOf(b.dims, b.dims.length - 2);
        try {
            ViewOps.broadcastShape("matmul", batchA, batchB);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("matmul: batch axes do not broadcast: " + a.shape() + " × " + b.shape());
        }
        DType type = promote(a.dtype, b.dtype);
        int m = a.dims[a.dims.length - 2];
        int n = b.dims[b.dims.length - 1];
        if (a.size() == 0 || b.size() == 0) {
            // empty operands: zeros (or nothing) without calling BLAS on zero-sized matrices
            int[] batch = ViewOps.broadcastShape("matmul", batchA, batchB);
            int[] dims = java.util.Arrays.copyOf(batch, batch.length + 2);
            dims[batch.length] = m;
            dims[batch.length + 1] = n;
            return zeros(dims, type);
        }
        return op(t -> {
            MemorySegment x = a.f32Array(t);
            MemorySegment y = b.f32Array(t);
            MemorySegment out = t.call("matmul", r -> mlx_matmul(r, x, y, s()));
            return result(out, type);
        });
    }
}
