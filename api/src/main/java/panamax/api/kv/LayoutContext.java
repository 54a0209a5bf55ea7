package panamax.api.kv;

import panamax.api.tensor.Backend;

/**
 * Where a layout will run.
 *
 * @param backend  the backend that stores its planes (borrowed)
 * @param layer    the attention layer index
 * @param rows     initial number of rows (batch size)
 * @param codec    the codec whose planes it stores (owned by the layout from now on)
 * @param identity an identity codec for layouts that start rows in full precision (owned by the layout), or null
 */
public record LayoutContext(Backend backend, int layer, int rows, KvCodec codec, KvCodec identity) {
}
