package panamax.models.decoder;

import java.util.Optional;

/**
 * How a mixture-of-experts family names and routes its sparse MLP blocks, as data: the one
 * {@link SparseMoe} reads these instead of a block per family.
 *
 * @param block         the layer's sparse module, e.g. {@code mlp} (Qwen3-MoE) or {@code block_sparse_moe} (Mixtral);
 *                      its router is {@code <block>.gate}, mlx-lm's stacked experts {@code <block>.switch_mlp.*_proj}
 * @param gate          one expert's gate projection as Hugging Face names it ({@code gate_proj}, Mixtral's {@code w1})
 * @param up            one expert's up projection ({@code up_proj}, {@code w3})
 * @param down          one expert's down projection ({@code down_proj}, {@code w2})
 * @param widthKey      the config.json field holding an expert's inner width
 * @param normalization whether the top-k weights are renormalized to sum to one
 * @param sparseLayers  which layers are sparse
 * @param shared        the expert every token also runs, weighted by a sigmoid gate (Qwen2-MoE), or empty
 */
public record MixtureOfExperts(String block, String gate, String up, String down, String widthKey,
                               TopKNormalization normalization, SparseLayers sparseLayers, Optional<SharedExpert> shared) {

    /** A family without a shared expert. */
    public MixtureOfExperts(String block, String gate, String up, String down, String widthKey,
                            TopKNormalization normalization, SparseLayers sparseLayers) {
        this(block, gate, up, down, widthKey, normalization, sparseLayers, Optional.empty());
    }

    /** Qwen3-MoE: experts under {@code mlp}, {@code norm_topk_prob}, {@code decoder_sparse_step} and {@code mlp_only_layers}. */
    public static final MixtureOfExperts QWEN3 = new MixtureOfExperts("mlp", "gate_proj", "up_proj", "down_proj", "moe_intermediate_size",
            TopKNormalization.FROM_NORM_TOPK_PROB, SparseLayers.FROM_SPARSE_STEP);

    /**
     * Qwen2-MoE: Qwen3-MoE's routing plus a shared expert, {@code mlp.shared_expert.{gate,up,down}_proj} of
     * {@code shared_expert_intermediate_size}, added to the routed sum times
     * {@code sigmoid(mlp.shared_expert_gate · x)} ({@code [1, hidden]}).
     */
    public static final MixtureOfExperts QWEN2 = new MixtureOfExperts("mlp", "gate_proj", "up_proj", "down_proj", "moe_intermediate_size",
            TopKNormalization.FROM_NORM_TOPK_PROB, SparseLayers.FROM_SPARSE_STEP,
            Optional.of(new SharedExpert("shared_expert", "shared_expert_gate", "shared_expert_intermediate_size")));

    /** Mixtral: experts under {@code block_sparse_moe} named w1/w3/w2, softmax over the selected logits, every layer sparse. */
    public static final MixtureOfExperts MIXTRAL = new MixtureOfExperts("block_sparse_moe", "w1", "w3", "w2", "intermediate_size",
            TopKNormalization.ALWAYS, SparseLayers.EVERY_LAYER);

    /**
     * An expert that every token runs besides its routed ones; its output is scaled by
     * {@code sigmoid(gate · x)}, one scalar per token, and added to the routed sum.
     *
     * @param module   the expert's module under the sparse block, with the routed experts' projection names
     * @param gate     the scalar gate's module under the sparse block ({@code [1, hidden]}, no bias)
     * @param widthKey the config.json field holding the shared expert's inner width
     */
    public record SharedExpert(String module, String gate, String widthKey) {
    }

    /** Whether the weights of the selected experts are divided by their sum. */
    public enum TopKNormalization {
        /** Always: the same as a softmax over the selected logits (Mixtral). */
        ALWAYS,
        /** When config.json's {@code norm_topk_prob} is true (default false, as transformers' Qwen3MoeConfig). */
        FROM_NORM_TOPK_PROB
    }

    /** Which layers hold experts (the others have the dense MLP of {@code intermediate_size}). */
    public enum SparseLayers {
        /** Every layer. */
        EVERY_LAYER,
        /** Layer i when it is not in {@code mlp_only_layers} and {@code (i + 1) % decoder_sparse_step == 0}. */
        FROM_SPARSE_STEP
    }
}
