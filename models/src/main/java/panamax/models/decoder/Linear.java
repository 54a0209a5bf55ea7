package panamax.models.decoder;

import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A linear projection {@code y = x·Wᵀ + b} whose weight {@code [out, in]} is either stored as loaded
 * (bf16/f16/f32, computed in f32) or MLX affine-quantized (run through {@code quantizedMatmul},
 * never dequantized as a whole). Owns its tensors. Thread-safe for concurrent {@link #apply}.
 */
final class Linear implements AutoCloseable {
    private final Tensor weight;              // (out, in), or null when quantized
    private final QuantizedMatrix quantized;  // packed (out, in·bits/32), or null
    private final Tensor bias;                // (out), or null
    private final int out;

    private Linear(Tensor weight, QuantizedMatrix quantized, Tensor bias, int out) {
        this.weight = weight;
        this.quantized = quantized;
        this.bias = bias;
        this.out = out;
    }

    static Linear dense(Tensor weight, Tensor bias) {
        return new Linear(weight, null, bias, weight.dim(0));
    }

    static Linear quantized(QuantizedMatrix weight, Tensor bias) {
        return new Linear(null, weight, bias, weight.rows());
    }

    int outFeatures() {
        return out;
    }

    /** {@code x [..., in]} (borrowed) to a new f32 {@code [..., out]}. */
    Tensor apply(Ops ops, Tensor x) {
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
