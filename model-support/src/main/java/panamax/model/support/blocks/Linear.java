package panamax.model.support.blocks;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A linear projection {@code y = x·W + b} whose weight is stored as loaded (bf16/f16/f32, computed
 * in f32) either as PyTorch's {@code Linear} writes it, {@code [out, in]}, or as Hugging Face's
 * {@code Conv1D} (GPT-2) writes it, {@code [in, out]}; or MLX affine-quantized {@code [out, in]}
 * (run through {@code quantizedMatmul}, never dequantized as a whole). Owns its tensors.
 * Thread-safe for concurrent {@link #apply}.
 */
public final class Linear implements AutoCloseable {
    private final Tensor weight;              // (out, in), or (in, out) when inputMajor; null when quantized
    private final boolean inputMajor;
    private final QuantizedMatrix quantized;  // packed (out, in·bits/32), or null
    private final Tensor bias;                // (out), or null
    private final int out;

    private Linear(Tensor weight, boolean inputMajor, QuantizedMatrix quantized, Tensor bias, int out) {
        this.weight = weight;
        this.inputMajor = inputMajor;
        this.quantized = quantized;
        this.bias = bias;
        this.out = out;
    }

    /** A {@code Linear} weight {@code [out, in]} with an optional bias {@code [out]} (null for none); takes ownership. */
    public static Linear dense(Tensor weight, Tensor bias) {
        return new Linear(weight, false, null, bias, weight.dim(0));
    }

    /** A {@code Conv1D} weight {@code [in, out]} with an optional bias {@code [out]}; takes ownership. */
    public static Linear inputMajor(Tensor weight, Tensor bias) {
        return new Linear(weight, true, null, bias, weight.dim(1));
    }

    /** An MLX-quantized weight with an optional bias {@code [out]}; takes ownership. */
    public static Linear quantized(QuantizedMatrix weight, Tensor bias) {
        return new Linear(null, false, weight, bias, weight.rows());
    }

    public int outFeatures() {
        return out;
    }

    /** {@code x [..., in]} (borrowed) to a new f32 {@code [..., out]}. */
    public Tensor apply(Ops ops, Tensor x) {
        try (Tensor flat = flat(ops, x);
             Tensor y = project(ops, flat)) {
            return finish(ops, y, x);
        }
    }

    /**
     * {@code xs[i]} (borrowed) through {@code linears[i]}: a new f32 tensor each, equal bit for bit to
     * {@code linears[i].apply(ops, xs[i])}. The products go to the backend together ({@link Ops#matmuls},
     * {@link Ops#quantizedMatmuls}), which may run them in one pass over its threads: a layer's q, k and v, or the
     * gate and up projections of the experts a token is routed to.
     */
    public static List<Tensor> applyAll(Ops ops, List<Linear> linears, List<Tensor> xs) {
        int n = linears.size();
        if (xs.size() != n) throw new IllegalArgumentException("applyAll: " + n + " projections and " + xs.size() + " inputs");
        List<Tensor> flats = new ArrayList<>(n);
        List<Tensor> ys = List.of();
        List<Tensor> results = new ArrayList<>(n);
        try {
            for (Tensor x : xs) flats.add(flat(ops, x));
            ys = switch (kindOf(linears)) {
                case DENSE -> projectDense(ops, linears, flats);
                case QUANTIZED -> projectQuantized(ops, linears, flats);
                case MIXED -> projectEach(ops, linears, flats);
            };
            for (int i = 0; i < n; i++) results.add(linears.get(i).finish(ops, ys.get(i), xs.get(i)));
            return results;
        } catch (RuntimeException | Error e) {
            for (Tensor t : results) t.close();
            throw e;
        } finally {
            for (Tensor t : flats) t.close();
            for (Tensor t : ys) t.close();
        }
    }

    /** How a list of projections goes to the backend: all dense ({@code [out, in]}), all quantized, or one by one. */
    private enum Kind { DENSE, QUANTIZED, MIXED }

    private static Kind kindOf(List<Linear> linears) {
        boolean dense = true, quantized = true;
        for (Linear l : linears) {
            dense &= l.quantized == null && !l.inputMajor;
            quantized &= l.quantized != null;
        }
        return dense ? Kind.DENSE : quantized ? Kind.QUANTIZED : Kind.MIXED;
    }

    /** {@code flats[i] · Wᵢᵀ} for dense projections, in one call. */
    private static List<Tensor> projectDense(Ops ops, List<Linear> linears, List<Tensor> flats) {
        List<Tensor> transposed = new ArrayList<>(linears.size());
        try {
            for (Linear l : linears) transposed.add(ops.transpose(l.weight, 1, 0));
            return ops.matmuls(flats, transposed);
        } finally {
            for (Tensor t : transposed) t.close();
        }
    }

    /** {@code flats[i] · Wᵢᵀ} in f32 for quantized projections, in one call. */
    private static List<Tensor> projectQuantized(Ops ops, List<Linear> linears, List<Tensor> flats) {
        List<QuantizedMatrix> matrices = new ArrayList<>(linears.size());
        for (Linear l : linears) matrices.add(l.quantized);
        List<Tensor> products = new ArrayList<>(ops.quantizedMatmuls(flats, matrices, true));
        try {
            for (int i = 0; i < products.size(); i++) {
                Tensor y = products.set(i, null); // toF32 closes it, also when it fails
                products.set(i, toF32(ops, y));
            }
            return products;
        } catch (RuntimeException | Error e) {
            for (Tensor t : products) if (t != null) t.close();
            throw e;
        }
    }

    /** Each projection on its own: a list that mixes kinds (none of the decoders makes one). */
    private static List<Tensor> projectEach(Ops ops, List<Linear> linears, List<Tensor> flats) {
        List<Tensor> ys = new ArrayList<>(linears.size());
        try {
            for (int i = 0; i < linears.size(); i++) ys.add(linears.get(i).project(ops, flats.get(i)));
            return ys;
        } catch (RuntimeException | Error e) {
            for (Tensor t : ys) t.close();
            throw e;
        }
    }

    /** x {@code [..., in]} as {@code [rows, in]}. */
    private static Tensor flat(Ops ops, Tensor x) {
        int[] dims = x.shape().dims();
        int rows = (int) (x.size() / dims[dims.length - 1]);
        return ops.reshape(x, Shape.of(rows, dims[dims.length - 1]));
    }

    /** The projection {@code y [rows, out]} (borrowed) with the bias added, shaped as x {@code [..., out]}: new. */
    private Tensor finish(Ops ops, Tensor y, Tensor x) {
        int[] outDims = x.shape().dims().clone();
        outDims[outDims.length - 1] = out;
        if (bias == null) return ops.reshape(y, Shape.of(outDims));
        try (Tensor biased = ops.add(y, bias)) {
            return ops.reshape(biased, Shape.of(outDims));
        }
    }

    /** y as f32: y itself, or a new f32 copy with y closed. */
    private static Tensor toF32(Ops ops, Tensor y) {
        if (y.dtype() == DType.F32) return y;
        try (y) {
            return ops.astype(y, DType.F32);
        }
    }

    private Tensor project(Ops ops, Tensor x) {
        if (quantized != null) return toF32(ops, ops.quantizedMatmul(x, quantized, true));
        if (inputMajor) return ops.matmul(x, weight);
        try (Tensor wt = ops.transpose(weight, 1, 0)) {
            return ops.matmul(x, wt);
        }
    }

    @Override
    public void close() {
        if (weight != null) weight.close();
        if (quantized != null) quantized.close();
        if (bias != null) bias.close();
    }
}
