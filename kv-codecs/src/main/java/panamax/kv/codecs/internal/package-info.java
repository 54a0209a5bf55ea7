/**
 * Helpers shared by the codecs, built on the backend SPI only: tensor scopes, seeded random streams,
 * parameter checks, and the kernels codecs run ({@link panamax.kv.codecs.internal.KvKernels}): the
 * backend's optional kernel families where it offers them, their compositions from core {@code Ops}
 * ({@link panamax.kv.codecs.internal.ComposedCodebookKernels},
 * {@link panamax.kv.codecs.internal.ComposedAttention}) where it does not. Not exported.
 *
 * {@snippet :
 * try (TensorScope s = new TensorScope()) {
 *     Tensor scores = s.add(ops.matmul(q, kT));                          // closed with the scope
 *     Tensor p = s.keep(composed.probabilities(scores, mask));          // kept: owned by the caller
 * }
 * }
 */
package panamax.kv.codecs.internal;
