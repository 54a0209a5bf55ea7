package panamax.api.kv;

import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;

/**
 * Where a codec instance will run: one attention layer of one model.
 *
 * @param backend        the backend whose tensors it encodes (borrowed)
 * @param layer          layer index, e.g. to seed per-layer rotations
 * @param kvHeads        number of key/value heads
 * @param headDim        features per head
 * @param activationType dtype of the keys and values it receives
 * @param seed           a model-wide seed for codecs that draw random transforms
 */
public record CodecContext(Backend backend, int layer, int kvHeads, int headDim, DType activationType, long seed) {
}
