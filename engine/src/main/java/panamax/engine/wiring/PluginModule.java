package panamax.engine.wiring;

import com.google.inject.AbstractModule;
import com.google.inject.multibindings.MapBinder;
import panamax.api.draft.DrafterProvider;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.model.ModelPlugin;
import panamax.api.tensor.BackendProvider;
import panamax.engine.plugins.DiscoveredPlugin;
import panamax.engine.plugins.PluginRegistry;

/**
 * Binds every discovered provider into a {@code MapBinder} keyed by its id, one map per kind.
 * Duplicate ids are not permitted: injector creation fails and names both bindings.
 */
public final class PluginModule extends AbstractModule {
    private final PluginRegistry registry;

    public PluginModule(PluginRegistry registry) {
        this.registry = registry;
    }

    @Override
    protected void configure() {
        bind(PluginRegistry.class).toInstance(registry);
        var backends = MapBinder.newMapBinder(binder(), String.class, BackendProvider.class);
        for (DiscoveredPlugin<BackendProvider> p : registry.backends()) backends.addBinding(p.id()).toInstance(p.provider());
        var codecs = MapBinder.newMapBinder(binder(), String.class, KvCodecProvider.class);
        for (DiscoveredPlugin<KvCodecProvider> p : registry.codecs()) codecs.addBinding(p.id()).toInstance(p.provider());
        var layouts = MapBinder.newMapBinder(binder(), String.class, KvLayoutProvider.class);
        for (DiscoveredPlugin<KvLayoutProvider> p : registry.layouts()) layouts.addBinding(p.id()).toInstance(p.provider());
        var models = MapBinder.newMapBinder(binder(), String.class, ModelPlugin.class);
        for (DiscoveredPlugin<ModelPlugin> p : registry.models()) models.addBinding(p.id()).toInstance(p.provider());
        var drafters = MapBinder.newMapBinder(binder(), String.class, DrafterProvider.class);
        for (DiscoveredPlugin<DrafterProvider> p : registry.drafters()) drafters.addBinding(p.id()).toInstance(p.provider());
    }
}
