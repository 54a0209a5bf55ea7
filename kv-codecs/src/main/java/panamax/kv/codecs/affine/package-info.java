/**
 * The {@code affine} codec: MLX's affine group quantization of keys and values, bit for bit, with
 * attention computed on the packed planes through {@code quantizedMatmul}.
 *
 * {@snippet :
 * KvCodecProvider affine = new AffineCodecProvider();
 * PluginParams params = PluginParams.of(Map.of("bits", "4", "group_size", "64")).resolve("affine", affine.capabilities().params());
 * double bits = affine.shape(params, 128, DType.BF16).bitsPerElement(); // 4.5
 * try (KvCodec codec = affine.create(params, new CodecContext(backend, 0, 8, 128, DType.BF16, 0))) {
 *     Tensor out = codec.attend(queries, keyPlanes, valuePlanes, 1 / Math.sqrt(128), AttentionMask.CAUSAL);
 * }
 * }
 */
package panamax.kv.codecs.affine;
