package panamax.api.tensor.kernel;

import java.util.Optional;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;

/**
 * Attention that reads an affine-quantized KV cache where it lies (MLX's affine format, see
 * {@link QuantizedMatrix}), never dequantizing keys or values as a whole.
 *
 * @since 0.4
 */
public interface AffineKvKernels extends KernelFamily {

    /**
     * {@code softmax(q·Kᵀ·scale + mask)·V} over affine-quantized keys and values, with the semantics
     * of {@link panamax.api.tensor.Ops#scaledDotProductAttention}: q {@code [B, Hq, Tq, D]}; keys
     * packed {@code [B, Hkv, Tk, D·bits/32]} with scales and biases {@code [B, Hkv, Tk, D/groupSize]};
     * values the same with Dv columns (their own bits and group size). Scores, softmax and sums in f32;
     * the result is {@code [B, Hq, Tq, Dv]} in q's dtype, equal to attention over the dequantized keys
     * and values up to f32 rounding.
     *
     * @return the attention, or empty when this kernel does not serve these formats (the caller then
     *         composes it from {@code Ops})
     * @throws IllegalArgumentException as {@link QuantizedAttentionShape#of(Tensor, QuantizedMatrix, QuantizedMatrix)}
     *         when the arguments do not fit, served or not
     */
    Optional<Tensor> quantizedAttention(Tensor q, QuantizedMatrix keys, QuantizedMatrix values, double scale, AttentionMask mask);
}
