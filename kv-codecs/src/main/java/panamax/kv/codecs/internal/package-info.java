/**
 * Helpers shared by the codecs, built on {@code Ops} only: tensor scopes, masked softmax, seeded
 * random streams, parameter checks. (Packing codes and looking them up are backend ops:
 * {@code Ops.codebookQuantize}, {@code codebookMatmul}, {@code codebookDequantize}.) Not exported.
 *
 * {@snippet :
 * try (TensorScope s = new TensorScope()) {
 *     Tensor scores = s.add(ops.matmul(q, kT));                          // closed with the scope
 *     Tensor p = s.keep(MaskedSoftmax.probabilities(ops, scores, mask)); // kept: owned by the caller
 * }
 * }
 */
package panamax.kv.codecs.internal;
