package panamax.api.model;

/**
 * What one attention layer needs from the KV cache, declared by the model before loading weights.
 *
 * @param layer    layer index
 * @param window   0 for full attention, else the sliding window in tokens
 * @param kvHeads  key/value heads
 * @param headDim  features per head
 * @param donor    index of an earlier layer whose KV this layer reads instead of its own, or -1
 */
public record LayerKvNeed(int layer, int window, int kvHeads, int headDim, int donor) {
    public LayerKvNeed {
        if (window < 0) throw new IllegalArgumentException("layer " + layer + ": window must be >= 0, found " + window);
        if (kvHeads <= 0 || headDim <= 0) {
            throw new IllegalArgumentException("layer " + layer + ": kvHeads and headDim must be positive, found " + kvHeads + ", " + headDim);
        }
    }

    public static LayerKvNeed full(int layer, int kvHeads, int headDim) {
        return new LayerKvNeed(layer, 0, kvHeads, headDim, -1);
    }

    public static LayerKvNeed sliding(int layer, int window, int kvHeads, int headDim) {
        return new LayerKvNeed(layer, window, kvHeads, headDim, -1);
    }

    public boolean isSliding() {
        return window > 0;
    }

    public boolean hasDonor() {
        return donor >= 0;
    }
}
