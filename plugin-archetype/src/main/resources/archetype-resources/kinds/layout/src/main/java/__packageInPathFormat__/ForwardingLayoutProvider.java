package ${package};

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;

/**
 * The {@code ${pluginId}} layout: every token of every row is kept, stored by panamax's {@code full}
 * layout, which this provider finds with ServiceLoader the first time it creates a layout (panamax
 * instantiates providers at every discovery, so the constructor does nothing). {@link ForwardingLayout}
 * is where a layout of your own changes what it keeps or how rows attend. Thread-safe.
 */
public final class ForwardingLayoutProvider implements KvLayoutProvider {
    /** The id users pass to {@code --kv-layout}. */
    public static final String ID = "${pluginId}";
    /** The layout that stores the rows. */
    static final String STORAGE = "full";

    // What the planner reads and the conformance kit checks: every operation full supports
    // (batchable, trimmable, hosts rotated values, aligns rows, capturable); unbounded; converts no codec.
    private static final LayoutCapabilities CAPABILITIES = new LayoutCapabilities(
            "every token kept, stored by the full layout (${artifactId})", List.of(),
            true, true, false, true, false, true, true);

    private volatile KvLayoutProvider storage;

    @Override
    public String id() {
        return ID;
    }

    @Override
    public LayoutCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public KvLayout create(PluginParams params, LayoutContext context) {
        KvLayoutProvider provider = storage();
        return new ForwardingLayout(provider.create(PluginParams.empty().resolve(STORAGE, provider.capabilities().params()), context));
    }

    private KvLayoutProvider storage() {
        KvLayoutProvider found = storage;
        if (found != null) return found;
        // In panamax the plugin is a module of a layer over the plugins folder, whose parent holds panamax's
        // own layouts; on a test class path it is unnamed and the class loader finds them.
        Module module = ForwardingLayoutProvider.class.getModule();
        ServiceLoader<KvLayoutProvider> loader = module.getLayer() != null
                ? ServiceLoader.load(module.getLayer(), KvLayoutProvider.class)
                : ServiceLoader.load(KvLayoutProvider.class, ForwardingLayoutProvider.class.getClassLoader());
        List<String> ids = new ArrayList<>();
        for (KvLayoutProvider p : loader) {
            if (p.id().equals(STORAGE)) {
                storage = p;
                return p;
            }
            ids.add(p.id());
        }
        throw new IllegalStateException("layout " + ID + " stores its rows in the '" + STORAGE
                + "' layout, which is not installed (layouts found: " + ids + ")");
    }
}
