package panamax.backend.tck;

import java.util.Arrays;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;
import panamax.api.tensor.Shape;

/**
 * A float64 reference tensor: dims and row-major values, the TCK's oracle for every op. Immutable
 * by convention (the arrays are not copied, callers do not mutate them). Thread-safe when unmodified.
 *
 * @param dims   outermost first
 * @param values row-major, {@code product(dims)} of them
 */
public record Ref(int[] dims, double[] values) {
    public Ref {
        if (values.length != size(dims)) {
            throw new IllegalArgumentException("values: expected " + size(dims) + " for dims " + Arrays.toString(dims)
                    + ", found " + values.length);
        }
    }

    public static Ref zeros(int... dims) {
        return new Ref(dims.clone(), new double[size(dims)]);
    }

    public static int size(int[] dims) {
        int n = 1;
        for (int d : dims) n *= d;
        return n;
    }

    public Shape shape() {
        return new Shape(dims);
    }

    public int rank() {
        return dims.length;
    }

    public int size() {
        return values.length;
    }

    public int dim(int axis) {
        return dims[axis < 0 ? axis + dims.length : axis];
    }

    public static int[] strides(int[] dims) {
        int[] s = new int[dims.length];
        int acc = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= dims[i];
        }
        return s;
    }

    /** The multi-index of row-major position {@code flat}. */
    public static int[] unravel(int flat, int[] dims) {
        int[] idx = new int[dims.length];
        for (int i = dims.length - 1; i >= 0; i--) {
            if (dims[i] == 0) return idx;
            idx[i] = flat % dims[i];
            flat /= dims[i];
        }
        return idx;
    }

    public static int ravel(int[] idx, int[] dims) {
        int flat = 0;
        for (int i = 0; i < dims.length; i++) flat = flat * dims[i] + idx[i];
        return flat;
    }

    public double at(int... idx) {
        return values[ravel(idx, dims)];
    }

    public float[] toFloats() {
        float[] f = new float[values.length];
        for (int i = 0; i < f.length; i++) f[i] = (float) values[i];
        return f;
    }

    public int[] toInts() {
        int[] r = new int[values.length];
        for (int i = 0; i < r.length; i++) r[i] = (int) (long) values[i];
        return r;
    }

    public Ref map(DoubleUnaryOperator f) {
        double[] out = new double[values.length];
        for (int i = 0; i < out.length; i++) out[i] = f.applyAsDouble(values[i]);
        return new Ref(dims, out);
    }

    /** Same values with new dims of equal size. */
    public Ref reshape(int... newDims) {
        return new Ref(newDims.clone(), values);
    }

    /** Result axis {@code i} is input axis {@code axes[i]}. */
    public Ref transpose(int... axes) {
        int[] outDims = new int[axes.length];
        for (int i = 0; i < axes.length; i++) outDims[i] = dims[axes[i]];
        double[] out = new double[values.length];
        int[] inIdx = new int[dims.length];
        for (int f = 0; f < out.length; f++) {
            int[] o = unravel(f, outDims);
            for (int i = 0; i < axes.length; i++) inIdx[axes[i]] = o[i];
            out[f] = values[ravel(inIdx, dims)];
        }
        return new Ref(outDims, out);
    }

    /** Indices {@code [start, end)} of {@code axis}. */
    public Ref slice(int axis, int start, int end) {
        int[] outDims = dims.clone();
        outDims[axis] = end - start;
        double[] out = new double[size(outDims)];
        for (int f = 0; f < out.length; f++) {
            int[] o = unravel(f, outDims);
            o[axis] += start;
            out[f] = values[ravel(o, dims)];
        }
        return new Ref(outDims, out);
    }

    /** Numpy broadcasting of two shapes, or null when they do not broadcast. */
    public static int[] broadcastDims(int[] a, int[] b) {
        int rank = Math.max(a.length, b.length);
        int[] out = new int[rank];
        for (int i = 0; i < rank; i++) {
            int da = i < rank - a.length ? 1 : a[i - (rank - a.length)];
            int db = i < rank - b.length ? 1 : b[i - (rank - b.length)];
            if (da != db && da != 1 && db != 1) return null;
            out[i] = da == 1 ? db : da;
        }
        return out;
    }

    /** The value of this tensor at multi-index {@code outIdx} of a shape it broadcasts to. */
    public double broadcastAt(int[] outIdx) {
        int off = outIdx.length - dims.length;
        int flat = 0;
        for (int i = 0; i < dims.length; i++) flat = flat * dims[i] + (dims[i] == 1 ? 0 : outIdx[off + i]);
        return values[flat];
    }

    public Ref broadcastTo(int[] outDims) {
        double[] out = new double[size(outDims)];
        for (int f = 0; f < out.length; f++) out[f] = broadcastAt(unravel(f, outDims));
        return new Ref(outDims.clone(), out);
    }

    /** {@code f(a, b)} elementwise after broadcasting. */
    public static Ref zip(Ref a, Ref b, DoubleBinaryOperator f) {
        int[] outDims = broadcastDims(a.dims, b.dims);
        if (outDims == null) throw new IllegalArgumentException(Arrays.toString(a.dims) + " vs " + Arrays.toString(b.dims));
        double[] out = new double[size(outDims)];
        for (int i = 0; i < out.length; i++) {
            int[] idx = unravel(i, outDims);
            out[i] = f.applyAsDouble(a.broadcastAt(idx), b.broadcastAt(idx));
        }
        return new Ref(outDims, out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ref r && Arrays.equals(dims, r.dims) && Arrays.equals(values, r.values);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(dims) + Arrays.hashCode(values);
    }

    /** Dims and up to 16 values, for failure reports. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(Arrays.toString(dims)).append('{');
        for (int i = 0; i < Math.min(16, values.length); i++) sb.append(i == 0 ? "" : ", ").append((float) values[i]);
        return sb.append(values.length > 16 ? ", ...}" : "}").toString();
    }
}
