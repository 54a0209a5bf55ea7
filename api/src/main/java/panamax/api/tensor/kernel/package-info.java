/**
 * Optional fused kernels beyond the core {@link panamax.api.tensor.Ops}: attention over affine or
 * codebook KV planes, and the codebook and Hadamard ops of vector quantizers, with the records they
 * exchange. A backend declares the families it offers in
 * {@link panamax.api.tensor.BackendCapabilities#kernels()}; a caller asks for one and composes the
 * same values from {@code Ops} when the backend has none.
 *
 * {@snippet :
 * Optional<Tensor> fused = backend.kernel(AffineKvKernels.class)
 *         .flatMap(k -> k.quantizedAttention(q, keys, values, scale, AttentionMask.CAUSAL));
 * }
 */
package panamax.api.tensor.kernel;
