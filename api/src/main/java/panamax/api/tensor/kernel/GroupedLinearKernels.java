package panamax.api.tensor.kernel;

import java.util.List;
import panamax.api.tensor.Tensor;

/**
 * Several independent projections {@code y_i = x_i·W_iᵀ} computed in one pass: a backend shares out
 * the rows of all the weights at once instead of finishing (and joining) each product before the
 * next starts — what a mixture-of-experts layer needs, whose routed experts are many small products
 * per token (Qwen3-30B-A3B: 24 per layer).
 *
 * @since 0.5
 */
public interface GroupedLinearKernels extends KernelFamily {

    /**
     * For each i, {@code inputs[i] [m_i, in_i]} (f32, borrowed) times the transpose of
     * {@code weights[i]} (borrowed), as a new f32 {@code [m_i, out_i]} owned by the caller. Each result
     * holds exactly the bits of {@code matmul(x_i, transpose(W_i))} (dense) or
     * {@code quantizedMatmul(x_i, W_i, true)} (quantized) on the same backend, so a caller may use
     * either; in particular a row's result does not depend on the other rows or products.
     *
     * @throws IllegalArgumentException when the lists differ in length, an input is not a 2-D f32
     *         tensor, or its columns differ from its weight's input features
     */
    List<Tensor> linear(List<Tensor> inputs, List<LinearWeight> weights);
}
