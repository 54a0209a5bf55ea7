package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.DType;
import panamax.api.tensor.Reduction;
import panamax.api.tensor.TopK;

/**
 * Reductions along one axis (sums in double, integer reductions in long), argmax, top-k and
 * softmax. Every op walks "lines" along the reduced axis of any strided view.
 */
final class ReduceOps {
    /** Consumes one line: its first element and the element stride along the axis. */
    @FunctionalInterface
    private interface LineBody {
        void line(long outIndex, long xBase);
    }

    private final JavaBackend backend;

    ReduceOps(JavaBackend backend) {
        this.backend = backend;
    }

    private static int[] withoutAxis(int[] dims, int a) {
        int[] out = new int[dims.length - 1];
        for (int i = 0, j = 0; i < dims.length; i++) if (i != a) out[j++] = dims[i];
        return out;
    }

    private static long[] withoutAxis(long[] v, int a) {
        long[] out = new long[v.length - 1];
        for (int i = 0, j = 0; i < v.length; i++) if (i != a) out[j++] = v[i];
        return out;
    }

    private static int[] resultDims(int[] dims, int a, boolean keepDims) {
        if (!keepDims) return withoutAxis(dims, a);
        int[] out = dims.clone();
        out[a] = 1;
        return out;
    }

    /** Calls {@code body} for every line along axis {@code a}, in row-major order of the other axes. */
    private void forEachLine(JavaTensor x, int a, LineBody body) {
        int[] outer = withoutAxis(x.dims, a);
        long[] outerStrides = withoutAxis(x.strides, a);
        StridedLoop loop = new StridedLoop(outer, new long[] {x.offset, 0}, outerStrides, JavaTensor.rowMajorStrides(outer));
        long xs = loop.innerStrides[0];
        long os = loop.innerStrides[1];
        long work = x.elementCount();
        loop.execute(backend.parallel, work, () -> (base, n) -> {
            for (int i = 0; i < n; i++) body.line(base[1] + i * os, base[0] + i * xs);
        });
    }

    JavaTensor reduce(Reduction op, JavaTensor x, int axis, boolean keepDims) {
        int a = x.shape.normalizeAxis(axis);
        int len = x.dims[a];
        long stride = x.strides[a];
        if (len == 0 && (op == Reduction.MAX || op == Reduction.MIN)) {
            throw new IllegalArgumentException(op + ": axis " + axis + " of " + x.shape + " is empty");
        }
        JavaTensor out = backend.allocate(resultDims(x.dims, a, keepDims), x.dtype);
        MemorySegment s = x.segment();
        MemorySegment d = out.segment();
        DType t = x.dtype;
        if (t.isFloating()) {
            forEachLine(x, a, (o, xb) -> {
                double acc = switch (op) {
                    case SUM, MEAN -> 0;
                    case MAX -> Double.NEGATIVE_INFINITY;
                    case MIN -> Double.POSITIVE_INFINITY;
                };
                for (int l = 0; l < len; l++) {
                    double v = RowIo.getFloat(s, t, xb + l * stride);
                    acc = switch (op) {
                        case SUM, MEAN -> acc + v;
                        case MAX -> Math.max(acc, v);
                        case MIN -> Math.min(acc, v);
                    };
                }
                if (op == Reduction.MEAN) acc /= len;
                RowIo.setFloat(d, t, o, (float) acc);
            });
        } else {
            forEachLine(x, a, (o, xb) -> {
                long acc = switch (op) {
                    case SUM, MEAN -> 0;
                    case MAX -> Long.MIN_VALUE;
                    case MIN -> Long.MAX_VALUE;
                };
                for (int l = 0; l < len; l++) {
                    long v = RowIo.getLong(s, t, xb + l * stride);
                    acc = switch (op) {
                        case SUM, MEAN -> acc + v;
                        case MAX -> Math.max(acc, v);
                        case MIN -> Math.min(acc, v);
                    };
                }
                if (op == Reduction.MEAN) acc = len == 0 ? 0 : acc / len;
                RowIo.setLong(d, t, o, DTypes.wrap(acc, t));
            });
        }
        return out;
    }

    JavaTensor argmax(JavaTensor x, int axis, boolean keepDims) {
        int a = x.shape.normalizeAxis(axis);
        int len = x.dims[a];
        if (len == 0) throw new IllegalArgumentException("argmax: axis " + axis + " of " + x.shape + " is empty");
        long stride = x.strides[a];
        JavaTensor out = backend.allocate(resultDims(x.dims, a, keepDims), DType.I32);
        MemorySegment s = x.segment();
        MemorySegment d = out.segment();
        DType t = x.dtype;
        forEachLine(x, a, (o, xb) -> {
            int best = 0;
            if (t.isFloating()) {
                float bv = RowIo.getFloat(s, t, xb);
                for (int l = 1; l < len && !Float.isNaN(bv); l++) {
                    float v = RowIo.getFloat(s, t, xb + l * stride);
                    if (v > bv || Float.isNaN(v)) {
                        bv = v;
                        best = l;
                    }
                }
            } else {
                long bv = RowIo.getLong(s, t, xb);
                for (int l = 1; l < len; l++) {
                    long v = RowIo.getLong(s, t, xb + l * stride);
                    if (v > bv) {
                        bv = v;
                        best = l;
                    }
                }
            }
            d.setAtIndex(RowIo.I32, o, best);
        });
        return out;
    }

    TopK topK(JavaTensor x, int k) {
        if (x.rank() == 0) throw new IllegalArgumentException("topK: expected at least one axis, found a scalar");
        int a = x.rank() - 1;
        int len = x.dims[a];
        if (k < 0 || k > len) throw new IllegalArgumentException("topK: expected 0 <= k <= " + len + " for " + x.shape + ", found " + k);
        int[] dims = x.dims.clone();
        dims[a] = k;
        JavaTensor values = backend.allocate(dims, x.dtype);
        JavaTensor indices = backend.allocate(dims, DType.I32);
        MemorySegment s = x.segment();
        MemorySegment dv = values.segment();
        MemorySegment di = indices.segment();
        long stride = x.strides[a];
        DType t = x.dtype;
        ThreadLocal<float[]> rows = ThreadLocal.withInitial(() -> new float[len]);
        forEachLine(x, a, (o, xb) -> {
            float[] row = rows.get();
            for (int l = 0; l < len; l++) row[l] = RowIo.getFloat(s, t, xb + l * stride);
            int[] top = select(row, len, k);
            for (int j = 0; j < k; j++) {
                long at = o * k + j;
                if (t.isFloating()) RowIo.setFloat(dv, t, at, row[top[j]]);
                else RowIo.copyRaw(s, xb + top[j] * stride, 1, dv, at, 1, 1, t.byteSize());
                di.setAtIndex(RowIo.I32, at, top[j]);
            }
        });
        return new TopK(values, indices);
    }

    /** Indices of the k largest values, descending, lower index first on ties. */
    static int[] select(float[] row, int len, int k) {
        int[] top = new int[k];
        if (k == 0) return top;
        if (k <= 64) {
            int size = 0;
            for (int l = 0; l < len; l++) {
                float v = row[l];
                if (size == k && !(greater(v, row[top[k - 1]]))) continue;
                int p = Math.min(size, k - 1);
                while (p > 0 && greater(v, row[top[p - 1]])) {
                    top[p] = top[p - 1];
                    p--;
                }
                top[p] = l;
                if (size < k) size++;
            }
            return top;
        }
        Integer[] order = new Integer[len];
        for (int l = 0; l < len; l++) order[l] = l;
        Arrays.sort(order, (i, j) -> greater(row[i], row[j]) ? -1 : greater(row[j], row[i]) ? 1 : Integer.compare(i, j));
        for (int j = 0; j < k; j++) top[j] = order[j];
        return top;
    }

    /** Strictly greater, NaN above everything. */
    private static boolean greater(float a, float b) {
        if (Float.isNaN(a)) return !Float.isNaN(b);
        return a > b;
    }

    JavaTensor softmax(JavaTensor x, int axis) {
        int a = x.shape.normalizeAxis(axis);
        int len = x.dims[a];
        long stride = x.strides[a];
        JavaTensor out = backend.allocate(x.dims, x.dtype);
        MemorySegment s = x.segment();
        MemorySegment d = out.segment();
        long outStride = out.strides[a];
        DType t = x.dtype;
        ThreadLocal<float[]> rows = ThreadLocal.withInitial(() -> new float[len]);
        // lines are visited in the order of the other axes; map each to its output line start
        int[] outer = withoutAxis(x.dims, a);
        long[] outerOut = withoutAxis(out.strides, a);
        long[] rowMajor = JavaTensor.rowMajorStrides(outer);
        forEachLine(x, a, (o, xb) -> {
            long ob = 0;
            long rest = o;
            for (int i = 0; i < outer.length; i++) {
                ob += (rest / rowMajor[i]) * outerOut[i];
                rest %= rowMajor[i];
            }
            float[] row = rows.get();
            RowIo.load(s, t, xb, stride, len, row);
            softmaxInPlace(row, len);
            RowIo.store(d, t, ob, outStride, len, row);
        });
        return out;
    }

    /**
     * Stable softmax of {@code v[0, n)} in place; a row of all −∞ becomes zeros. The exponentials are
     * summed from the first finite entry to the last, so leading and trailing −∞ entries (a masked row's
     * left padding) are exact zeros that move nothing: the row's sum is the same with or without them.
     */
    static void softmaxInPlace(float[] v, int n) {
        float max = Float.NEGATIVE_INFINITY;
        int first = -1;
        int last = -1;
        for (int i = 0; i < n; i++) {
            if (v[i] == Float.NEGATIVE_INFINITY) continue;
            if (first < 0) first = i;
            last = i;
            max = Math.max(max, v[i]);
        }
        if (first < 0 || max == Float.NEGATIVE_INFINITY) {
            Arrays.fill(v, 0, n, 0f);
            return;
        }
        Arrays.fill(v, 0, first, 0f);
        Arrays.fill(v, last + 1, n, 0f);
        float sum = panamax.backend.java.kernel.VectorMath.expShifted(v, first, last + 1, max);
        float inv = 1 / sum;
        for (int i = first; i <= last; i++) v[i] *= inv;
    }
}
