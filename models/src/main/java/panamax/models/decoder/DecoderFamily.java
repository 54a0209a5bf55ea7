package panamax.models.decoder;

import java.util.Optional;
import panamax.api.tensor.UnaryOp;

/**
 * What distinguishes one dense decoder family from another, as data: the one
 * {@link DenseDecoderGraph} reads these flags instead of having a copy per family.
 *
 * @param id              the plugin id, e.g. {@code llama}
 * @param qkvBiasDefault  q/k/v projections have biases unless config.json says otherwise (Qwen2)
 * @param qkNorm          RMSNorm over each head of q and k before RoPE (Qwen3, Gemma 3)
 * @param normPlusOne     RMSNorm scales by {@code 1 + w} rather than {@code w} (Gemma)
 * @param sandwichNorms   norms after attention and around the MLP as well (Gemma 3)
 * @param activation      the MLP's gate activation (SiLU, or GELU-tanh for Gemma)
 * @param scaledEmbedding embeddings are multiplied by √hidden (Gemma)
 * @param tiedDefault     the output projection reuses the embedding unless config.json says otherwise (Gemma)
 * @param sliding         which layers use a sliding window when config.json has no {@code layer_types}
 * @param experts         how its sparse layers name and route experts; empty for a dense family
 */
public record DecoderFamily(String id, boolean qkvBiasDefault, boolean qkNorm, boolean normPlusOne, boolean sandwichNorms,
                            UnaryOp activation, boolean scaledEmbedding, boolean tiedDefault,
                            SlidingPolicy sliding, Optional<MixtureOfExperts> experts) {

    /** A dense family. */
    public DecoderFamily(String id, boolean qkvBiasDefault, boolean qkNorm, boolean normPlusOne, boolean sandwichNorms,
                         UnaryOp activation, boolean scaledEmbedding, boolean tiedDefault, SlidingPolicy sliding) {
        this(id, qkvBiasDefault, qkNorm, normPlusOne, sandwichNorms, activation, scaledEmbedding, tiedDefault, sliding, Optional.empty());
    }

    /** This family with sparse layers routed as {@code moe} says. */
    public DecoderFamily withExperts(String id, MixtureOfExperts moe) {
        return new DecoderFamily(id, qkvBiasDefault, qkNorm, normPlusOne, sandwichNorms, activation, scaledEmbedding, tiedDefault, sliding,
                Optional.of(moe));
    }

    /** How a family's classic config.json marks sliding-window layers. */
    public enum SlidingPolicy {
        /** No sliding window. */
        NONE,
        /** Every layer slides when {@code sliding_window} is set (Mistral). */
        EVERY_LAYER,
        /** Layers {@code i >= max_window_layers} slide when {@code use_sliding_window} is true (Qwen2/3). */
        FROM_MAX_WINDOW_LAYERS,
        /** Every {@code sliding_window_pattern}-th layer is full, the others slide (Gemma 3). */
        PATTERN
    }
}
