package panamax.api.draft;

import panamax.api.kv.PluginParams;

/**
 * A drafter plugin for speculative decoding, found with {@link java.util.ServiceLoader}: it proposes
 * a few next tokens per row, which the target model then verifies in one forward pass.
 */
public interface DrafterProvider {
    /** Stable id, e.g. {@code ngram}, {@code draft-model}. */
    String id();

    /** What the drafter declares before it is instantiated; the planner reads only this. */
    DrafterCapabilities capabilities();

    /**
     * A new drafter, owned by the caller. Params are already resolved against
     * {@link DrafterCapabilities#params()}.
     *
     * @throws panamax.api.error.UnsupportedCombinationException when the context cannot serve this
     *         drafter (e.g. a draft model whose tokenizer differs from the target's)
     */
    Drafter create(PluginParams params, DraftContext context);
}
