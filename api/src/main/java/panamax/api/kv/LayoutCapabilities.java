package panamax.api.kv;

import java.util.List;

/**
 * What a layout plugin declares before it is instantiated.
 *
 * @param description        one line for {@code panamax plugins}
 * @param params             the parameters it accepts (e.g. {@code window}, {@code keep}, {@code start})
 * @param batchable          rows can be filtered, merged and extracted
 * @param trimmable          supports {@code trim} (possibly only until some state, see {@link KvLayout#isTrimmable()})
 * @param bounded            keeps at most a window of tokens per row (memory does not grow with context)
 * @param hostsRotatedValues lets a codec with rotated values transform the attention output
 * @param convertsCodec      starts rows in identity and converts them to a target codec later
 * @param alignsRows         implements {@link KvLayout#alignRows} (since 0.1)
 * @param capturable         implements {@link KvLayout#capture} (since 0.1)
 */
public record LayoutCapabilities(String description, List<ParamSpec> params, boolean batchable, boolean trimmable,
                                 boolean bounded, boolean hostsRotatedValues, boolean convertsCodec,
                                 boolean alignsRows, boolean capturable) {
    public LayoutCapabilities {
        params = List.copyOf(params);
    }

    /** Capabilities of a layout that neither aligns rows nor can be captured. */
    public LayoutCapabilities(String description, List<ParamSpec> params, boolean batchable, boolean trimmable,
                              boolean bounded, boolean hostsRotatedValues, boolean convertsCodec) {
        this(description, params, batchable, trimmable, bounded, hostsRotatedValues, convertsCodec, false, false);
    }
}
