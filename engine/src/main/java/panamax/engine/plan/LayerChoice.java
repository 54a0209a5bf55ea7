package panamax.engine.plan;

import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.PluginParams;
import panamax.api.model.LayerKvNeed;

/**
 * The planner's working record for one layer: the chosen layout and what a token costs in it.
 *
 * @param need                  what the model declared for the layer
 * @param layoutId              chosen layout id
 * @param layout                its provider (for {@code storedTokens})
 * @param layoutParams          resolved layout params
 * @param bytesPerToken         bytes per token of one row in the target codec (all kv heads, K and V)
 * @param identityBytesPerToken bytes per token before a delayed layout converts (equal to
 *                              {@code bytesPerToken} when nothing is delayed)
 * @param quantizedStart        offset at which a delayed layout converts, or -1
 * @param reason                why this layout, for readers of the plan
 */
record LayerChoice(LayerKvNeed need, String layoutId, KvLayoutProvider layout, PluginParams layoutParams,
                   long bytesPerToken, long identityBytesPerToken, long quantizedStart, String reason) {

    /** Bytes of one row of this layer at {@code context} tokens, saturating at {@link Long#MAX_VALUE}. */
    long bytesAt(long context) {
        if (need.hasDonor()) return 0;
        long stored = storedAt(context);
        long perToken = quantizedStart >= 0 && context <= quantizedStart ? identityBytesPerToken : bytesPerToken;
        try {
            return Math.multiplyExact(stored, perToken);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE; // saturate: more than any budget
        }
    }

    /** Tokens of one row this layer keeps at {@code context} tokens. */
    long storedAt(long context) {
        return need.hasDonor() ? 0 : layout.storedTokens(layoutParams, context);
    }

    boolean bounded() {
        return need.hasDonor() || layout.capabilities().bounded();
    }
}
