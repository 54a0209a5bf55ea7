package panamax.kv.layouts;

import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;

/** The {@code full} layout: every token of every row is kept. */
public final class FullLayoutProvider implements KvLayoutProvider {
    private static final LayoutCapabilities CAPABILITIES = LayoutCapabilities.builder(
            "every token kept; rows batched with per-row offsets and left padding")
            .batchable(true).trimmable(true).hostsRotatedValues(true).alignsRows(true).capturable(true)
            .build();

    @Override
    public String id() {
        return "full";
    }

    @Override
    public LayoutCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public KvLayout create(PluginParams params, LayoutContext context) {
        return LayoutParams.create(context, Retention.ALL, 0);
    }
}
