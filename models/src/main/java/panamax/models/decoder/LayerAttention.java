package panamax.models.decoder;

import panamax.api.tensor.RopeSpec;

/**
 * How one attention layer attends.
 *
 * @param window 0 for full attention, else the sliding window in tokens (a query sees itself and the window−1 before it)
 * @param rope   its rotary embedding (sliding and full layers may use different bases)
 */
public record LayerAttention(int window, RopeSpec rope) {
}
