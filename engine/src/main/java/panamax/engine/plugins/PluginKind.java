package panamax.engine.plugins;

import panamax.api.draft.DrafterProvider;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.model.ModelPlugin;
import panamax.api.tensor.BackendProvider;

/** The kinds of plugin the engine discovers, each with its service interface. */
public enum PluginKind {
    BACKEND("backend", BackendProvider.class),
    CODEC("codec", KvCodecProvider.class),
    LAYOUT("layout", KvLayoutProvider.class),
    MODEL("model", ModelPlugin.class),
    DRAFTER("drafter", DrafterProvider.class);

    private final String label;
    private final Class<?> service;

    PluginKind(String label, Class<?> service) {
        this.label = label;
        this.service = service;
    }

    /** The word users read, e.g. {@code codec}. */
    public String label() {
        return label;
    }

    /** The service interface ServiceLoader looks up. */
    public Class<?> service() {
        return service;
    }

    /**
     * Returns the provider's id after reading its declarations once, so that a provider whose
     * {@code id()}, {@code capabilities()} or {@code modelTypes()} throws is reported at discovery
     * instead of crashing the planner later.
     *
     * @throws IllegalStateException when the id is blank
     */
    String probe(Object provider) {
        String id = switch (this) {
            case BACKEND -> {
                BackendProvider p = (BackendProvider) provider;
                p.capabilities();
                yield p.id();
            }
            case CODEC -> {
                KvCodecProvider p = (KvCodecProvider) provider;
                p.capabilities();
                yield p.id();
            }
            case LAYOUT -> {
                KvLayoutProvider p = (KvLayoutProvider) provider;
                p.capabilities();
                yield p.id();
            }
            case MODEL -> {
                ModelPlugin p = (ModelPlugin) provider;
                p.modelTypes();
                yield p.id();
            }
            case DRAFTER -> {
                DrafterProvider p = (DrafterProvider) provider;
                p.capabilities();
                yield p.id();
            }
        };
        if (id == null || id.isBlank()) {
            throw new IllegalStateException("id() returned " + (id == null ? "null" : "a blank string") + ", expected a stable non-blank id");
        }
        return id;
    }
}
