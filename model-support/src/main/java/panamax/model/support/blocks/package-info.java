/**
 * The blocks decoders are built from: {@link panamax.model.support.blocks.Linear} (PyTorch
 * {@code Linear}, Hugging Face {@code Conv1D}, MLX-quantized), {@link panamax.model.support.blocks.Attention}
 * over a KV layout with RoPE, {@link panamax.model.support.blocks.Mlp} (gated or plain),
 * {@link panamax.model.support.blocks.Norm}, {@link panamax.model.support.blocks.Embedding} and
 * {@link panamax.model.support.blocks.LogitHead}.
 *
 * {@snippet :
 * try (Tensor h = norm.apply(ops, x); Tensor m = mlp.apply(ops, UnaryOp.SILU, h)) {
 *     return ops.add(x, m);
 * }
 * }
 */
package panamax.model.support.blocks;
