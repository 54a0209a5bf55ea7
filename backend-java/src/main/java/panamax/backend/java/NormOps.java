package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.RopeSpec;
import panamax.backend.java.kernel.RowNorms;

/** Fused row ops over the last axis: RMSNorm, LayerNorm and rotary embedding. Outputs keep x's dtype. */
final class NormOps {
    /** Transforms one row in place, given its row-major index among the rows. */
    @FunctionalInterface
    private interface RowBody {
        void row(long index, float[] v, int d);
    }

    private final JavaBackend backend;
    private final RopeAngles angles = new RopeAngles();

    NormOps(JavaBackend backend) {
        this.backend = backend;
    }

    /**
     * Applies {@code body} to every row of the last axis of x, writing a contiguous result. The rows are shared out
     * over the threads in runs of about {@link #VALUES_PER_TASK} values: a prefill's [1, 512, 256] norm is 512 rows, which
     * the element loop's 4,096-row units had left to one thread.
     */
    private JavaTensor mapRows(JavaTensor x, RowBody body) {
        if (x.rank() == 0) throw new IllegalArgumentException("expected at least one axis, found a scalar");
        int d = x.dims[x.rank() - 1];
        long stride = x.strides[x.rank() - 1];
        JavaTensor out = backend.allocate(x.dims, x.dtype);
        int[] outer = Arrays.copyOf(x.dims, x.rank() - 1);
        long rows = 1;
        for (int n : outer) rows *= n;
        if (rows > Integer.MAX_VALUE) throw new IllegalArgumentException("too many rows: " + x.shape);
        MemorySegment s = x.segment();
        MemorySegment o = out.segment();
        int grain = x.elementCount() < VALUES_PER_TASK ? Integer.MAX_VALUE : Math.max(1, VALUES_PER_TASK / Math.max(d, 1));
        backend.parallel.forRange((int) rows, grain, () -> new float[d], (from, to, row) -> {
            for (int r = from; r < to; r++) {
                long at = x.offset;
                long rest = r;
                for (int a = outer.length - 1; a >= 0; a--) {
                    at += (rest % outer[a]) * x.strides[a];
                    rest /= outer[a];
                }
                RowIo.load(s, x.dtype, at, stride, d, row);
                body.row(r, row, d);
                RowIo.store(o, x.dtype, (long) r * d, 1, d, row);
            }
        });
        return out;
    }

    /** Values of x one thread's share of a row op takes at least (as the element loops share theirs). */
    private static final int VALUES_PER_TASK = 1 << 14;

    private static float[] vector(JavaTensor w, int d, String name) {
        if (w == null) return null;
        if (w.rank() != 1 || w.dims[0] != d) {
            throw new IllegalArgumentException(name + ": expected shape [" + d + "], found " + w.shape);
        }
        return w.backend.toFloats(w);
    }

    JavaTensor rmsNorm(JavaTensor x, JavaTensor weight, double eps) {
        int d = x.rank() == 0 ? 0 : x.dims[x.rank() - 1];
        float[] w = vector(weight, d, "weight");
        return mapRows(x, (index, v, n) -> {
            float r = (float) (1 / Math.sqrt(RowNorms.sumOfSquares(v, n) / n + eps));
            RowNorms.scale(v, n, r, w);
        });
    }

    JavaTensor layerNorm(JavaTensor x, JavaTensor weight, JavaTensor bias, double eps) {
        int d = x.rank() == 0 ? 0 : x.dims[x.rank() - 1];
        float[] w = vector(weight, d, "weight");
        float[] b = vector(bias, d, "bias");
        return mapRows(x, (index, v, n) -> {
            double mean = 0;
            for (int i = 0; i < n; i++) mean += v[i];
            mean /= n;
            double var = 0;
            for (int i = 0; i < n; i++) var += (v[i] - mean) * (v[i] - mean);
            var /= n;
            double r = 1 / Math.sqrt(var + eps);
            for (int i = 0; i < n; i++) {
                float y = (float) ((v[i] - mean) * r);
                if (w != null) y *= w[i];
                if (b != null) y += b[i];
                v[i] = y;
            }
        });
    }

    /** x [B, H, T, D] (or [B, T, D], [T, D]); offsets I32 [B] or [1]. */
    JavaTensor rope(JavaTensor x, RopeSpec spec, JavaTensor offsets) {
        if (x.rank() < 2) throw new IllegalArgumentException("rope: expected x of rank >= 2, found " + x.shape);
        int r = x.rank();
        int d = x.dims[r - 1];
        int t = x.dims[r - 2];
        int b = r >= 3 ? x.dims[0] : 1;
        if (spec.dims() > d) throw new IllegalArgumentException("rope: dims " + spec.dims() + " exceed head dimension " + d + " of " + x.shape);
        long[] off = GatherOps.indices(offsets, "rope offsets");
        if (off.length != b && off.length != 1) {
            throw new IllegalArgumentException("rope: offsets must have " + b + " or 1 entries for " + x.shape + ", found " + offsets.shape);
        }
        int half = spec.dims() / 2;
        // cos/sin per (row, token, pair)
        float[] cos = new float[b * t * half];
        float[] sin = new float[b * t * half];
        for (int bi = 0; bi < b; bi++) angles.fill(spec, off.length == 1 ? off[0] : off[bi], t, cos, sin, bi * t * half);
        long rowsPerBatch = 1;
        for (int i = r >= 3 ? 1 : 0; i < r - 1; i++) rowsPerBatch *= x.dims[i];
        long perBatch = rowsPerBatch;
        boolean traditional = spec.traditional();
        return mapRows(x, (row, v, n) -> {
            long bi = row / perBatch;
            int ti = (int) (row % t);
            int c = (int) ((bi * t + ti) * half);
            if (traditional) {
                for (int i = 0; i < half; i++) {
                    float x0 = v[2 * i], x1 = v[2 * i + 1];
                    v[2 * i] = x0 * cos[c + i] - x1 * sin[c + i];
                    v[2 * i + 1] = x0 * sin[c + i] + x1 * cos[c + i];
                }
            } else {
                for (int i = 0; i < half; i++) {
                    float x0 = v[i], x1 = v[i + half];
                    v[i] = x0 * cos[c + i] - x1 * sin[c + i];
                    v[i + half] = x0 * sin[c + i] + x1 * cos[c + i];
                }
            }
        });
    }
}
