package panamax.models.family;

import java.util.Set;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.decoder.MixtureOfExperts;

/**
 * Qwen3-MoE: Qwen3's attention (per-head q/k norm, decoupled head_dim) with routed experts in the
 * sparse layers (softmax, top-k, {@code norm_topk_prob}; {@code decoder_sparse_step} and
 * {@code mlp_only_layers} choose the sparse layers, the others keep a dense MLP). Qwen2-MoE, which adds
 * a shared expert, is {@link Qwen2MoePlugin}.
 */
public final class Qwen3MoePlugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = Qwen3Plugin.FAMILY.withExperts("qwen3_moe", MixtureOfExperts.QWEN3);

    public Qwen3MoePlugin() {
        super(FAMILY, Set.of("qwen3_moe"));
    }
}
