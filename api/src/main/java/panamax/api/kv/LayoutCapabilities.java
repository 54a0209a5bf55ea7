package panamax.api.kv;

import java.util.List;
import java.util.Objects;

/**
 * What a layout plugin declares before it is instantiated. Built by name, so a provider reads as a
 * list of what it can do:
 *
 * {@snippet :
 * LayoutCapabilities capabilities = LayoutCapabilities.builder("every token kept")
 *         .batchable(true).trimmable(true).alignsRows(true).capturable(true)
 *         .build();
 * }
 *
 * @param description        one line for {@code panamax plugins}
 * @param params             the parameters it accepts (e.g. {@code window}, {@code keep}, {@code start})
 * @param batchable          rows can be filtered, merged and extracted ({@link RowMembership})
 * @param trimmable          supports {@code trim} (possibly only until some state, see {@link KvLayout#isTrimmable()})
 * @param bounded            keeps at most a window of tokens per row (memory does not grow with context)
 * @param hostsRotatedValues lets a codec with rotated values transform the attention output
 * @param convertsCodec      starts rows in identity and converts them to a target codec later
 * @param alignsRows         implements {@link RowMembership#alignRows} (since 0.1)
 * @param capturable         implements {@link DonorCapture#capture} (since 0.1)
 */
public record LayoutCapabilities(String description, List<ParamSpec> params, boolean batchable, boolean trimmable,
                                 boolean bounded, boolean hostsRotatedValues, boolean convertsCodec,
                                 boolean alignsRows, boolean capturable) {
    public LayoutCapabilities {
        params = List.copyOf(params);
    }

    /**
     * Capabilities of a layout described by {@code description}, accepting no parameters and
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
        private boolean batchable;
        private boolean trimmable;
        private boolean bounded;
        private boolean hostsRotatedValues;
        private boolean convertsCodec;
        private boolean alignsRows;
        private boolean capturable;

        private Builder(String description) {
            this.description = Objects.requireNonNull(description, "description");
        }

        /** The parameters the layout accepts. */
        public Builder params(List<ParamSpec> params) {
            this.params = List.copyOf(params);
            return this;
        }

        /** Rows can be filtered, merged and extracted. */
        public Builder batchable(boolean batchable) {
            this.batchable = batchable;
            return this;
        }

        /** {@code trim} works (possibly only until some state). */
        public Builder trimmable(boolean trimmable) {
            this.trimmable = trimmable;
            return this;
        }

        /** Keeps at most a window of tokens per row. */
        public Builder bounded(boolean bounded) {
            this.bounded = bounded;
            return this;
        }

        /** Lets a codec with rotated values transform the attention output. */
        public Builder hostsRotatedValues(boolean hostsRotatedValues) {
            this.hostsRotatedValues = hostsRotatedValues;
            return this;
        }

        /** Starts rows in identity and converts them to a target codec later. */
        public Builder convertsCodec(boolean convertsCodec) {
            this.convertsCodec = convertsCodec;
            return this;
        }

        /** Implements {@link RowMembership#alignRows}. */
        public Builder alignsRows(boolean alignsRows) {
            this.alignsRows = alignsRows;
            return this;
        }

        /** Implements {@link DonorCapture#capture}. */
        public Builder capturable(boolean capturable) {
            this.capturable = capturable;
            return this;
        }

        public LayoutCapabilities build() {
            return new LayoutCapabilities(description, params, batchable, trimmable, bounded, hostsRotatedValues,
                    convertsCodec, alignsRows, capturable);
        }
    }
}
