package panamax.models.family;

import java.util.Set;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.decoder.MixtureOfExperts;

/**
 * Qwen2-MoE (Qwen1.5-MoE, Qwen2-57B-A14B): Qwen2's attention (q/k/v biases) with Qwen3-MoE's routing
 * (softmax, top-k, {@code norm_topk_prob}, {@code decoder_sparse_step}, {@code mlp_only_layers}) plus a
 * shared expert that every token runs, added times {@code sigmoid(shared_expert_gate · x)}.
 */
public final class Qwen2MoePlugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = Qwen2Plugin.FAMILY.withExperts("qwen2_moe", MixtureOfExperts.QWEN2);

    public Qwen2MoePlugin() {
        super(FAMILY, Set.of("qwen2_moe"));
    }
}
