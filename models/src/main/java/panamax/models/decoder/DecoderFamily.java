package panamax.models.decoder;

import java.util.Objects;
import java.util.Optional;
import panamax.api.tensor.UnaryOp;

/**
 * What distinguishes one dense decoder family from another, as data: the one
 * {@link DenseDecoderGraph} reads these flags instead of having a copy per family. Built by name,
 * so a family reads as the list of what sets it apart:
 *
 * {@snippet :
 * DecoderFamily gemma3 = DecoderFamily.builder("gemma3")
 *         .qkNorm(true).normPlusOne(true).sandwichNorms(true).activation(UnaryOp.GELU_TANH)
 *         .scaledEmbedding(true).tiedDefault(true).sliding(SlidingPolicy.PATTERN)
 *         .build();
 * }
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

    /** A dense family {@code id}: no biases, norms or scaling, SiLU, no sliding window, until the builder says so. */
    public static Builder builder(String id) {
        return new Builder(id);
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

    /** Names each trait of a dense family (see the record's components). Not thread-safe. */
    public static final class Builder {
        private final String id;
        private boolean qkvBiasDefault;
        private boolean qkNorm;
        private boolean normPlusOne;
        private boolean sandwichNorms;
        private UnaryOp activation = UnaryOp.SILU;
        private boolean scaledEmbedding;
        private boolean tiedDefault;
        private SlidingPolicy sliding = SlidingPolicy.NONE;

        private Builder(String id) {
            this.id = Objects.requireNonNull(id, "id");
        }

        public Builder qkvBiasDefault(boolean qkvBiasDefault) {
            this.qkvBiasDefault = qkvBiasDefault;
            return this;
        }

        public Builder qkNorm(boolean qkNorm) {
            this.qkNorm = qkNorm;
            return this;
        }

        public Builder normPlusOne(boolean normPlusOne) {
            this.normPlusOne = normPlusOne;
            return this;
        }

        public Builder sandwichNorms(boolean sandwichNorms) {
            this.sandwichNorms = sandwichNorms;
            return this;
        }

        public Builder activation(UnaryOp activation) {
            this.activation = Objects.requireNonNull(activation, "activation");
            return this;
        }

        public Builder scaledEmbedding(boolean scaledEmbedding) {
            this.scaledEmbedding = scaledEmbedding;
            return this;
        }

        public Builder tiedDefault(boolean tiedDefault) {
            this.tiedDefault = tiedDefault;
            return this;
        }

        public Builder sliding(SlidingPolicy sliding) {
            this.sliding = Objects.requireNonNull(sliding, "sliding");
            return this;
        }

        public DecoderFamily build() {
            return new DecoderFamily(id, qkvBiasDefault, qkNorm, normPlusOne, sandwichNorms, activation, scaledEmbedding, tiedDefault,
                    sliding, Optional.empty());
        }
    }
}
