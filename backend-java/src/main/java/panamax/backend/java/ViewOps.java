package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;

/** Views (reshape, transpose, slice, broadcast) and copies (copy, concat, astype). Stateless apart from the backend. */
final class ViewOps {
    private final JavaBackend backend;

    ViewOps(JavaBackend backend) {
        this.backend = backend;
    }

    JavaTensor reshape(JavaTensor x, Shape shape) {
        if (shape.size() != x.elementCount()) {
            throw new IllegalArgumentException("reshape: expected a shape of " + x.elementCount() + " elements like " + x.shape
                    + ", found " + shape);
        }
        int[] dims = shape.dims();
        if (x.isContiguous()) return x.view(dims, JavaTensor.rowMajorStrides(dims), x.offset);
        try (JavaTensor c = copy(x)) {
            return c.view(dims, JavaTensor.rowMajorStrides(dims), 0);
        }
    }

    JavaTensor transpose(JavaTensor x, int... axes) {
        int r = x.rank();
        int[] perm = axes;
        if (axes.length == 0) {
            perm = new int[r];
            for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
        }
        if (perm.length != r) {
            throw new IllegalArgumentException("transpose: expected " + r + " axes for shape " + x.shape + ", found " + Arrays.toString(axes));
        }
        boolean[] seen = new boolean[r];
        int[] dims = new int[r];
        long[] strides = new long[r];
        for (int i = 0; i < r; i++) {
            int a = x.shape.normalizeAxis(perm[i]);
            if (seen[a]) throw new IllegalArgumentException("transpose: axis " + perm[i] + " repeated in " + Arrays.toString(axes));
            seen[a] = true;
            dims[i] = x.dims[a];
            strides[i] = x.strides[a];
        }
        return x.view(dims, strides, x.offset);
    }

    JavaTensor slice(JavaTensor x, int axis, int start, int end) {
        int a = x.shape.normalizeAxis(axis);
        if (start < 0 || start > end || end > x.dims[a]) {
            throw new IllegalArgumentException("slice: expected 0 <= start <= end <= " + x.dims[a] + " on axis " + axis
                    + " of " + x.shape + ", found [" + start + ", " + end + ")");
        }
        int[] dims = x.dims.clone();
        dims[a] = end - start;
        return x.view(dims, x.strides.clone(), x.offset + start * x.strides[a]);
    }

    JavaTensor broadcastTo(JavaTensor x, Shape shape) {
        int[] target = shape.dims();
        return x.view(target, broadcastStrides(x, target, "broadcastTo"), x.offset);
    }

    /** x's strides aligned to {@code target} (numpy rules), 0 on broadcast axes. */
    static long[] broadcastStrides(JavaTensor x, int[] target, String op) {
        int r = target.length;
        int xr = x.rank();
        if (xr > r) throw new IllegalArgumentException(op + ": cannot broadcast " + x.shape + " to " + Arrays.toString(target));
        long[] strides = new long[r];
        for (int i = 0; i < r; i++) {
            int xi = i - (r - xr);
            if (xi < 0) continue;
            int d = x.dims[xi];
            if (d == target[i]) strides[i] = d == 1 ? 0 : x.strides[xi];
            else if (d == 1) strides[i] = 0;
            else throw new IllegalArgumentException(op + ": cannot broadcast " + x.shape + " to " + Arrays.toString(target));
        }
        return strides;
    }

    /** The numpy broadcast of several shapes. */
    static int[] broadcastShape(String op, JavaTensor... xs) {
        int r = 0;
        for (JavaTensor x : xs) r = Math.max(r, x.rank());
        int[] out = new int[r];
        Arrays.fill(out, 1);
        for (JavaTensor x : xs) {
            for (int i = 0; i < x.rank(); i++) {
                int o = i + r - x.rank();
                int d = x.dims[i];
                if (out[o] == 1) out[o] = d;
                else if (d != 1 && d != out[o]) {
                    StringBuilder shapes = new StringBuilder();
                    for (JavaTensor y : xs) shapes.append(' ').append(y.shape);
                    throw new IllegalArgumentException(op + ": shapes do not broadcast:" + shapes);
                }
            }
        }
        return out;
    }

    JavaTensor copy(JavaTensor x) {
        JavaTensor out = backend.allocate(x.dims, x.dtype);
        convertInto(x, out, out.offset, out.strides);
        return out;
    }

    JavaTensor astype(JavaTensor x, DType dtype) {
        JavaTensor out = backend.allocate(x.dims, dtype);
        convertInto(x, out, out.offset, out.strides);
        return out;
    }

    /**
     * Writes {@code src} (converted to dst's dtype) into the region of {@code dst} with src's dims
     * at {@code dstOffset} with {@code dstStrides}.
     */
    void convertInto(JavaTensor src, JavaTensor dst, long dstOffset, long[] dstStrides) {
        MemorySegment s = src.segment();
        MemorySegment d = dst.segment();
        StridedLoop loop = new StridedLoop(src.dims, new long[] {src.offset, dstOffset}, src.strides, dstStrides);
        long ss = loop.innerStrides[0];
        long ds = loop.innerStrides[1];
        DType st = src.dtype;
        DType dt = dst.dtype;
        if (st == dt) {
            int bytes = st.byteSize();
            loop.execute(backend.parallel, src.elementCount(), () -> (base, n) -> RowIo.copyRaw(s, base[0], ss, d, base[1], ds, n, bytes));
        } else if (!st.isFloating() && !dt.isFloating()) {
            loop.execute(backend.parallel, src.elementCount(), () -> {
                long[] buf = new long[loop.runLength()];
                return (base, n) -> {
                    RowIo.load(s, st, base[0], ss, n, buf);
                    RowIo.store(d, dt, base[1], ds, n, buf);
                };
            });
        } else {
            loop.execute(backend.parallel, src.elementCount(), () -> {
                float[] buf = new float[loop.runLength()];
                return (base, n) -> {
                    RowIo.load(s, st, base[0], ss, n, buf);
                    RowIo.store(d, dt, base[1], ds, n, buf);
                };
            });
        }
    }

    JavaTensor concat(List<JavaTensor> xs, int axis) {
        if (xs.isEmpty()) throw new IllegalArgumentException("concat: expected at least one tensor, found none");
        JavaTensor first = xs.get(0);
        int a = first.shape.normalizeAxis(axis);
        int total = 0;
        for (JavaTensor x : xs) {
            if (x.dtype != first.dtype) {
                throw new IllegalArgumentException("concat: expected dtype " + first.dtype + ", found " + x.dtype);
            }
            boolean ok = x.rank() == first.rank();
            for (int i = 0; ok && i < x.rank(); i++) ok = i == a || x.dims[i] == first.dims[i];
            if (!ok) {
                throw new IllegalArgumentException("concat: shapes differ off axis " + axis + ": " + first.shape + " and " + x.shape);
            }
            total += x.dims[a];
        }
        int[] dims = first.dims.clone();
        dims[a] = total;
        JavaTensor out = backend.allocate(dims, first.dtype);
        long at = 0;
        for (JavaTensor x : xs) {
            convertInto(x, out, at * out.strides[a], out.strides);
            at += x.dims[a];
        }
        return out;
    }
}
