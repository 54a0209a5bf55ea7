package panamax.api.plan;

import panamax.api.kv.PluginParams;

/**
 * The resolved storage of one attention layer.
 *
 * @param layer         layer index
 * @param layout        layout id
 * @param layoutParams  resolved layout parameters
 * @param codec         codec id
 * @param codecParams   resolved codec parameters
 * @param bytesPerToken bytes one token of one row takes in this layer (keys and values, all kv heads)
 * @param storedTokens  tokens per row kept at the planned context (a window for bounded layouts)
 * @param reason        why this layout and codec were chosen, for people reading the plan
 */
public record LayerPlan(int layer, String layout, PluginParams layoutParams, String codec, PluginParams codecParams,
                        long bytesPerToken, long storedTokens, String reason) {
}
