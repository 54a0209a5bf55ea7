package panamax.kv.layouts;

import java.util.List;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;

/**
 * The {@code delayed} layout (params {@code start}, {@code storage}, and {@code window}/{@code keep}
 * for rotating storage): rows start in the context's identity codec and move their whole history
 * into the layout's codec when their offset reaches {@code start}, one layer (one layout) at a time.
 */
public final class DelayedLayoutProvider implements KvLayoutProvider {
    private static final LayoutCapabilities CAPABILITIES = LayoutCapabilities.builder(
            "rows start in identity and are re-encoded into the codec at offset start; over full or rotating storage")
            .params(List.of(LayoutParams.START, LayoutParams.STORAGE, LayoutParams.WINDOW, LayoutParams.KEEP))
            .batchable(true).trimmable(true).hostsRotatedValues(true).convertsCodec(true).alignsRows(true).capturable(true)
            .build();

    @Override
    public String id() {
        return "delayed";
    }

    @Override
    public LayoutCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public long storedTokens(PluginParams params, long contextTokens) {
        return rotating(params) ? Math.min(contextTokens, params.getInt(LayoutParams.WINDOW.name())) : contextTokens;
    }

    @Override
    public KvLayout create(PluginParams params, LayoutContext context) {
        Retention retention = rotating(params) ? LayoutParams.ring(id(), params) : Retention.ALL;
        return LayoutParams.create(context, retention, LayoutParams.start(id(), params));
    }

    private static boolean rotating(PluginParams params) {
        return params.get(LayoutParams.STORAGE.name()).equals("rotating");
    }
}
