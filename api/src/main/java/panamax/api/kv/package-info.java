/**
 * KV cache SPIs: codecs turn keys and values into planes; layouts store planes for a batch of rows.
 *
 * {@snippet :
 * PluginParams params = PluginParams.of(Map.of("bits", "4")).resolve(provider.id(), provider.capabilities().params());
 * CodecShape shape = provider.shape(params, 128);
 * double bits = shape.bitsPerElement(); // 4.5 for affine 4-bit, group 64, bf16 scales
 * }
 */
package panamax.api.kv;
