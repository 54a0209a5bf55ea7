package panamax.api.kv;

import java.util.List;

/**
 * What a codec plugin declares before it is instantiated.
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
}
