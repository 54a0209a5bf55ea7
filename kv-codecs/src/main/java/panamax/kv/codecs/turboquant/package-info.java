/**
 * The {@code turboquant} codec (Zandieh et al., 2025): randomized Hadamard rotation per head,
 * separate norms, Lloyd-Max codebooks computed here, optional QJL residual on keys, and attention
 * in the rotated domain.
 *
 * {@snippet :
 * KvCodecProvider tq = new TurboQuantCodecProvider();
 * PluginParams params = PluginParams.of(Map.of("key_bits", "4", "value_bits", "3")).resolve("turboquant", tq.capabilities().params());
 * try (KvCodec codec = tq.create(params, new CodecContext(backend, layer, 8, 128, DType.BF16, modelSeed))) {
 *     List<Tensor> k = codec.encode(KvRole.KEY, keys);     // codes U32 [.., 16], norm F32 [.., 1]
 *     List<Tensor> v = codec.encode(KvRole.VALUE, values); // codes U32 [.., 12], norm F32 [.., 1]
 *     Tensor out = codec.attend(queries, k, v, 1 / Math.sqrt(128), AttentionMask.CAUSAL); // un-rotated
 * }
 * }
 */
package panamax.kv.codecs.turboquant;
