package panamax.api.kv;

import java.util.List;
import java.util.Objects;

/**
 * What a codec plugin declares before it is instantiated. Built by name:
 *
 * {@snippet :
 * KvCodecCapabilities capabilities = KvCodecCapabilities.builder("MLX affine group quantization")
 *         .params(params).attentionOnPlanes(true)
 *         .build();
 * }
 *
 * @param description       one line for {@code panamax plugins}
 * @param params            the parameters it accepts
 * @param attentionOnPlanes true when it computes attention from its planes without a dequantized copy
 * @param rotatedValues     true when values are stored in a rotated domain, so the layout must let
 *                          the codec transform the attention output (a layout that cannot host
 *                          such a codec is refused by the planner)
 */
public record KvCodecCapabilities(String description, List<ParamSpec> params, boolean attentionOnPlanes,
                                  boolean rotatedValues) {
    public KvCodecCapabilities {
        params = List.copyOf(params);
    }

    /**
     * Capabilities of a codec described by {@code description}, accepting no parameters and
     * declaring nothing until the builder says so.
     *
     * @since 0.4
     */
    public static Builder builder(String description) {
        return new Builder(description);
    }

    /**
     * Names each capability; everything left unset is false. Not thread-safe.
     *
     * @since 0.4
     */
    public static final class Builder {
        private final String description;
        private List<ParamSpec> params = List.of();
        private boolean attentionOnPlanes;
        private boolean rotatedValues;

        private Builder(String description) {
            this.description = Objects.requireNonNull(description, "description");
        }

        /** The parameters the codec accepts. */
        public Builder params(List<ParamSpec> params) {
            this.params = List.copyOf(params);
            return this;
        }

        /** Computes attention from its planes without a dequantized copy. */
        public Builder attentionOnPlanes(boolean attentionOnPlanes) {
            this.attentionOnPlanes = attentionOnPlanes;
            return this;
        }

        /** Stores values in a rotated domain (the layout must host rotated values). */
        public Builder rotatedValues(boolean rotatedValues) {
            this.rotatedValues = rotatedValues;
            return this;
        }

        public KvCodecCapabilities build() {
            return new KvCodecCapabilities(description, params, attentionOnPlanes, rotatedValues);
        }
    }
}
