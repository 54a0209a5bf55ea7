/**
 * The {@code identity} codec: keys and values kept unchanged in bf16, f16 or f32, so layouts treat
 * full precision as just another codec.
 *
 * {@snippet :
 * KvCodecProvider identity = new IdentityCodecProvider();
 * PluginParams params = PluginParams.of(Map.of("dtype", "f32")).resolve("identity", identity.capabilities().params());
 * try (KvCodec codec = identity.create(params, new CodecContext(backend, 0, 8, 128, DType.BF16, 0))) {
 *     List<Tensor> planes = codec.encode(KvRole.KEY, keys); // one plane, f32 [rows, 8, tokens, 128]
 * }
 * }
 */
package panamax.kv.codecs.identity;
