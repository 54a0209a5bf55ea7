package panamax.model.support.blocks;

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
        int[] dims = x.shape().dims();
        int rows = (int) (x.size() / dims[dims.length - 1]);
        int[] outDims = dims.clone();
        outDims[dims.length - 1] = out;
        try (Tensor flat = ops.reshape(x, Shape.of(rows, dims[dims.length - 1]));
             Tensor y = project(ops, flat)) {
            if (bias == null) return ops.reshape(y, Shape.of(outDims));
            try (Tensor biased = ops.add(y, bias)) {
                return ops.reshape(biased, Shape.of(outDims));
            }
        }
    }

    private Tensor project(Ops ops, Tensor x) {
        if (quantized != null) {
            Tensor y = ops.quantizedMatmul(x, quantized, true);
            if (y.dtype() == DType.F32) return y;
            try (y) {
                return ops.astype(y, DType.F32);
            }
        }
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
