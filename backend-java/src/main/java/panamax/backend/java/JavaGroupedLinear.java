package panamax.backend.java;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.DType;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.GroupedLinearKernels;
import panamax.api.tensor.kernel.LinearWeight;
import panamax.backend.java.kernel.Parallel;

/**
 * The java backend's {@link GroupedLinearKernels}: every product is cut into the row ranges its own
 * {@code matmul} / {@code quantizedMatmul} would share out ({@link MatmulOps#transposedRows},
 * {@link QuantMatmul#transposedRows}, same kernels, same ranges), and all the ranges of all the
 * products go to the workers as one job, so the threads meet once per call instead of once per
 * product (a mixture-of-experts layer's 8 routed experts: 16 gate/up products, then 8 down). Each
 * result therefore has the bits of its single product. A weight those row kernels do not take (a
 * strided float matrix, a stacked or strided quantized one) is computed by the ordinary op.
 * Inputs are borrowed, results owned by the caller. Thread-safe.
 */
final class JavaGroupedLinear implements GroupedLinearKernels {
    private final JavaBackend backend;
    private final QuantOps quant;

    JavaGroupedLinear(JavaBackend backend, QuantOps quant) {
        this.backend = backend;
        this.quant = quant;
    }

    @Override
    public List<Tensor> linear(List<Tensor> inputs, List<LinearWeight> weights) {
        if (inputs.size() != weights.size()) {
            throw new IllegalArgumentException("grouped linear: " + inputs.size() + " inputs for " + weights.size() + " weights");
        }
        int count = inputs.size();
        int threads = backend.parallel.threads();
        float[][] results = new float[count][];
        Tensor[] direct = new Tensor[count]; // products the row kernels do not take, computed by the op
        List<Runnable> pieces = new ArrayList<>();
        List<Tensor> out = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                JavaTensor x = backend.check(inputs.get(i), "inputs[" + i + "]");
                LinearWeight w = weights.get(i);
                if (x.rank() != 2 || x.dtype != DType.F32) {
                    throw new IllegalArgumentException("grouped linear: inputs[" + i + "]: expected f32 [rows, in], found " + x.dtype + " " + x.shape);
                }
                int m = x.dims[0], k = x.dims[1], n = w.out();
                if (w.in() != k) {
                    throw new IllegalArgumentException("grouped linear: inputs[" + i + "] " + x.shape + " against a weight of " + k + " → "
                            + w.in() + " features");
                }
                float[] xr = MatmulOps.rows(x, x.offset, m, k);
                float[] c = new float[m * n];
                Parallel.Range rows;
                int quads;
                if (w.dense() != null) {
                    JavaTensor wt = backend.check(w.dense(), "weights[" + i + "]");
                    boolean rowMajor = wt.strides[1] == 1 || k == 1;
                    rows = !rowMajor || !wt.dtype.isFloating() || n == 0 ? null
                            : MatmulOps.transposedRows(xr, m, k, n, wt.segment(), wt.dtype, wt.offset * wt.dtype.byteSize(),
                            wt.strides[0] * wt.dtype.byteSize(), c);
                    quads = MatmulOps.TRANSPOSED_QUADS.applyAsInt(k);
                } else {
                    rows = n == 0 ? null : quant.transposedRows(w.quantized(), xr, m, c);
                    quads = QuantMatmul.TRANSPOSED_QUADS.applyAsInt(k);
                }
                if (rows == null) {
                    direct[i] = single(x, w);
                    continue;
                }
                results[i] = c;
                // the ranges forEvenSplit would cut this product into on its own
                int units = (n + 3) / 4;
                int grain = Math.max(quads, (units + 4 * threads - 1) / (4 * threads));
                int chunks = (units + grain - 1) / grain;
                for (int j = 0; j < chunks; j++) {
                    int from = 4 * (int) ((long) units * j / chunks), to = Math.min(n, 4 * (int) ((long) units * (j + 1) / chunks));
                    pieces.add(() -> rows.run(from, to));
                }
            }
            backend.parallel.forEachTask(pieces.size(), (t, end) -> pieces.get(t).run());
            for (int i = 0; i < count; i++) {
                if (direct[i] != null) {
                    out.add(direct[i]);
                    direct[i] = null;
                    continue;
                }
                JavaTensor y = backend.allocate(new int[] {inputs.get(i).dim(0), weights.get(i).out()}, DType.F32);
                out.add(y);
                MatmulOps.store(y, 0, results[i]);
            }
            return out;
        } catch (RuntimeException | Error e) {
            for (Tensor t : out) t.close();
            for (Tensor t : direct) if (t != null) t.close();
            throw e;
        }
    }

    /** One product through the ordinary ops, as f32. */
    private Tensor single(JavaTensor x, LinearWeight w) {
        var ops = backend.ops();
        Tensor y;
        if (w.quantized() != null) {
            y = ops.quantizedMatmul(x, w.quantized(), true);
        } else {
            try (Tensor t = ops.transpose(w.dense(), 1, 0)) {
                y = ops.matmul(x, t);
            }
        }
        if (y.dtype() == DType.F32) return y;
        try (y) {
            return ops.astype(y, DType.F32);
        }
    }
}
