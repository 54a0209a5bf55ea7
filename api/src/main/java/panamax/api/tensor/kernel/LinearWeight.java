package panamax.api.tensor.kernel;

import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;

/**
 * The weight of one projection {@code y = x·Wᵀ} for {@link GroupedLinearKernels}: either a float
 * matrix {@code [out, in]} as PyTorch's {@code Linear} stores it, or an affine-quantized one (rows =
 * out). Borrowed: closing this record is the owner's business, not the kernel's.
 *
 * @param dense     float (f32, f16 or bf16) {@code [out, in]}, or null when quantized
 * @param quantized affine-quantized {@code [out, in]}, or null when dense
 * @since 0.5
 */
public record LinearWeight(Tensor dense, QuantizedMatrix quantized) {
    public LinearWeight {
        if ((dense == null) == (quantized == null)) throw new IllegalArgumentException("expected exactly one of a dense or a quantized weight");
        if (dense != null && dense.rank() != 2) throw new IllegalArgumentException("dense weight: expected [out, in], found " + dense.shape());
    }

    /** A float weight {@code [out, in]}. */
    public static LinearWeight of(Tensor dense) {
        return new LinearWeight(dense, null);
    }

    /** An affine-quantized weight. */
    public static LinearWeight of(QuantizedMatrix quantized) {
        return new LinearWeight(null, quantized);
    }

    /** Output features (rows of W). */
    public int out() {
        return dense != null ? dense.dim(0) : quantized.rows();
    }

    /** Input features (columns of W). */
    public int in() {
        return dense != null ? dense.dim(1) : quantized.cols();
    }
}
