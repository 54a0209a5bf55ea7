/**
 * Helpers shared by the codecs, built on {@code Ops} only: tensor scopes, seeded
 * random streams, parameter checks. (Packing codes, looking them up and masked softmax are backend ops:
 * {@code Ops.codebookQuantize}, {@code codebookMatmul}, {@code codebookDequantize},
 * {@code attentionProbabilities}.) Not exported.
 *
 * {@snippet :
 * try (TensorScope s = new TensorScope()) {
 *     Tensor scores = s.add(ops.matmul(q, kT));                          // closed with the scope
 *     Tensor p = s.keep(ops.attentionProbabilities(scores, mask));     // kept: owned by the caller
 * }
 * }
 */
package panamax.kv.codecs.internal;
