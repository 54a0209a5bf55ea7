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
 * @param kvHeads  key/value heads of the layer, or 0 when unknown (then learned from the first append;
 *                 until then {@link KvLayout#bytesPerToken()} and {@link KvLayout#projectedBytes} count one head)
 */
public record LayoutContext(Backend backend, int layer, int rows, KvCodec codec, KvCodec identity, int kvHeads) {
    public LayoutContext {
        if (rows < 0) throw new IllegalArgumentException("rows must be >= 0, found " + rows);
        if (kvHeads < 0) throw new IllegalArgumentException("kvHeads must be >= 0, found " + kvHeads);
    }

    /** A context whose head count is learned from the first append. */
    public LayoutContext(Backend backend, int layer, int rows, KvCodec codec, KvCodec identity) {
        this(backend, layer, rows, codec, identity, 0);
    }
}
