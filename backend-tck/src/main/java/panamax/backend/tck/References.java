package panamax.backend.tck;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import panamax.api.tensor.Reduction;

/**
 * Float64 references of data movement, reductions and matmul, written as plain index loops over
 * {@link Ref}s. Stateless; thread-safe.
 */
public final class References {
    private References() {
    }

    /** Joins along {@code axis}. */
    public static Ref concat(List<Ref> parts, int axis) {
        int[] dims = parts.get(0).dims().clone();
        dims[axis] = parts.stream().mapToInt(p -> p.dim(axis)).sum();
        double[] out = new double[Ref.size(dims)];
        for (int f = 0; f < out.length; f++) {
            int[] idx = Ref.unravel(f, dims);
            int part = 0;
            while (idx[axis] >= parts.get(part).dim(axis)) idx[axis] -= parts.get(part++).dim(axis);
            out[f] = parts.get(part).at(idx);
        }
        return new Ref(dims, out);
    }

    /** x's shape with {@code axis} replaced by the indices' shape. */
    public static Ref take(Ref x, Ref indices, int axis) {
        List<Integer> d = new ArrayList<>();
        for (int i = 0; i < axis; i++) d.add(x.dim(i));
        for (int i : indices.dims()) d.add(i);
        for (int i = axis + 1; i < x.rank(); i++) d.add(x.dim(i));
        int[] dims = d.stream().mapToInt(Integer::intValue).toArray();
        double[] out = new double[Ref.size(dims)];
        int ir = indices.rank();
        for (int f = 0; f < out.length; f++) {
            int[] o = Ref.unravel(f, dims);
            int[] xi = new int[x.rank()];
            int[] ii = new int[ir];
            for (int i = 0; i < axis; i++) xi[i] = o[i];
            System.arraycopy(o, axis, ii, 0, ir);
            xi[axis] = (int) indices.at(ii);
            for (int i = axis + 1; i < x.rank(); i++) xi[i] = o[i - 1 + ir];
            out[f] = x.at(xi);
        }
        return new Ref(dims, out);
    }

    /** {@code out[..i..] = x[..indices[..i..]..]}; indices broadcast against x on the other axes. */
    public static Ref takeAlongAxis(Ref x, Ref indices, int axis) {
        int[] dims = new int[x.rank()];
        for (int a = 0; a < dims.length; a++) {
            dims[a] = a == axis || x.dim(a) == 1 ? indices.dim(a) : x.dim(a);
        }
        double[] out = new double[Ref.size(dims)];
        for (int f = 0; f < out.length; f++) {
            int[] o = Ref.unravel(f, dims);
            int[] ii = new int[o.length];
            int[] xi = new int[o.length];
            for (int a = 0; a < o.length; a++) {
                ii[a] = indices.dim(a) == 1 ? 0 : o[a];
                xi[a] = x.dim(a) == 1 ? 0 : o[a];
            }
            xi[axis] = (int) indices.at(ii);
            out[f] = x.at(xi);
        }
        return new Ref(dims, out);
    }

    /** A copy of x with {@code values} (shaped like indices) written at {@code indices} along {@code axis}. */
    public static Ref putAlongAxis(Ref x, Ref indices, Ref values, int axis) {
        double[] out = x.values().clone();
        for (int f = 0; f < indices.size(); f++) {
            int[] i = Ref.unravel(f, indices.dims());
            int[] xi = i.clone();
            xi[axis] = (int) indices.values()[f];
            out[Ref.ravel(xi, x.dims())] = values.values()[f];
        }
        return new Ref(x.dims(), out);
    }

    /** A copy of x with {@code update} written at {@code starts}. */
    public static Ref sliceUpdate(Ref x, Ref update, int[] starts) {
        double[] out = x.values().clone();
        for (int f = 0; f < update.size(); f++) {
            int[] i = Ref.unravel(f, update.dims());
            for (int a = 0; a < i.length; a++) i[a] += starts[a];
            out[Ref.ravel(i, x.dims())] = update.values()[f];
        }
        return new Ref(x.dims(), out);
    }

    private static int[] reducedDims(int[] dims, int axis, boolean keepDims) {
        if (keepDims) {
            int[] d = dims.clone();
            d[axis] = 1;
            return d;
        }
        int[] d = new int[dims.length - 1];
        for (int i = 0, j = 0; i < dims.length; i++) if (i != axis) d[j++] = dims[i];
        return d;
    }

    /** The values along {@code axis} at every position of the reduced shape (keepDims layout). */
    private static double[][] lanes(Ref x, int axis) {
        int[] kept = reducedDims(x.dims(), axis, true);
        int n = x.dim(axis);
        double[][] lanes = new double[Ref.size(kept)][n];
        for (int f = 0; f < lanes.length; f++) {
            int[] idx = Ref.unravel(f, kept);
            for (int j = 0; j < n; j++) {
                idx[axis] = j;
                lanes[f][j] = x.at(idx);
            }
        }
        return lanes;
    }

    /** SUM, MEAN, MAX or MIN along {@code axis}; magnitude Σ|x| (over n for MEAN, 0 for MAX/MIN). */
    public static Expected reduce(Reduction op, Ref x, int axis, boolean keepDims) {
        double[][] lanes = lanes(x, axis);
        double[] out = new double[lanes.length];
        double[] mag = new double[lanes.length];
        for (int f = 0; f < lanes.length; f++) {
            double sum = 0;
            double abs = 0;
            double max = Double.NEGATIVE_INFINITY;
            double min = Double.POSITIVE_INFINITY;
            for (double v : lanes[f]) {
                sum += v;
                abs += Math.abs(v);
                max = Math.max(max, v);
                min = Math.min(min, v);
            }
            int n = lanes[f].length;
            out[f] = switch (op) {
                case SUM -> sum;
                case MEAN -> sum / n;
                case MAX -> max;
                case MIN -> min;
            };
            mag[f] = switch (op) {
                case SUM -> abs;
                case MEAN -> abs / n;
                case MAX, MIN -> 0;
            };
        }
        return new Expected(new Ref(reducedDims(x.dims(), axis, keepDims), out), mag);
    }

    /** Index of the first largest value along {@code axis}. */
    public static Ref argmax(Ref x, int axis, boolean keepDims) {
        double[][] lanes = lanes(x, axis);
        double[] out = new double[lanes.length];
        for (int f = 0; f < lanes.length; f++) {
            int best = 0;
            for (int j = 1; j < lanes[f].length; j++) if (lanes[f][j] > lanes[f][best]) best = j;
            out[f] = best;
        }
        return new Ref(reducedDims(x.dims(), axis, keepDims), out);
    }

    /** The k largest values along the last axis, descending, ties by lower index; [values, indices]. */
    public static Ref[] topK(Ref x, int k) {
        int axis = x.rank() - 1;
        double[][] lanes = lanes(x, axis);
        int[] dims = x.dims().clone();
        dims[axis] = k;
        double[] values = new double[lanes.length * k];
        double[] indices = new double[lanes.length * k];
        for (int f = 0; f < lanes.length; f++) {
            double[] lane = lanes[f];
            List<Integer> order = new ArrayList<>();
            for (int j = 0; j < lane.length; j++) order.add(j);
            order.sort(Comparator.<Integer>comparingDouble(j -> -lane[j]).thenComparingInt(j -> j));
            for (int j = 0; j < k; j++) {
                values[f * k + j] = lane[order.get(j)];
                indices[f * k + j] = order.get(j);
            }
        }
        return new Ref[] {new Ref(dims, values), new Ref(dims.clone(), indices)};
    }

    /** {@code [..., m, k] × [..., k, n]} with broadcast batch axes; magnitude Σ|a·b|. */
    public static Expected matmul(Ref a, Ref b) {
        int m = a.dim(-2);
        int k = a.dim(-1);
        int n = b.dim(-1);
        int[] aBatch = java.util.Arrays.copyOf(a.dims(), a.rank() - 2);
        int[] bBatch = java.util.Arrays.copyOf(b.dims(), b.rank() - 2);
        int[] batch = Ref.broadcastDims(aBatch, bBatch);
        Ref aa = a.broadcastTo(concat(batch, m, k));
        Ref bb = b.broadcastTo(concat(batch, k, n));
        int batches = Ref.size(batch);
        double[] out = new double[batches * m * n];
        double[] mag = new double[out.length];
        for (int p = 0; p < batches; p++) {
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double sum = 0;
                    double abs = 0;
                    for (int t = 0; t < k; t++) {
                        double prod = aa.values()[(p * m + i) * k + t] * bb.values()[(p * k + t) * n + j];
                        sum += prod;
                        abs += Math.abs(prod);
                    }
                    out[(p * m + i) * n + j] = sum;
                    mag[(p * m + i) * n + j] = abs;
                }
            }
        }
        return new Expected(new Ref(concat(batch, m, n), out), mag);
    }

    /** {@code batch} followed by {@code tail}. */
    public static int[] concat(int[] batch, int... tail) {
        int[] out = java.util.Arrays.copyOf(batch, batch.length + tail.length);
        System.arraycopy(tail, 0, out, batch.length, tail.length);
        return out;
    }

    /** The permutation of {@code rank} axes that swaps the last two. */
    public static int[] swapLast(int rank) {
        int[] p = new int[rank];
        for (int i = 0; i < rank; i++) p[i] = i;
        p[rank - 2] = rank - 1;
        p[rank - 1] = rank - 2;
        return p;
    }
}
