package panamax.engine.plugins;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import panamax.api.draft.DrafterProvider;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.model.ModelPlugin;
import panamax.api.tensor.BackendProvider;

/**
 * Every plugin the engine found, from the boot layer and from a plugins directory, and every
 * plugin that failed to load. Immutable and thread-safe once built.
 *
 * {@snippet :
 * PluginRegistry registry = PluginRegistry.discover(Optional.of(Path.of("plugins")));
 * registry.codecs().forEach(c -> System.out.println(c.id() + " " + c.moduleAndVersion() + " " + c.origin()));
 * registry.failures().forEach(System.err::println);
 * }
 */
public final class PluginRegistry {
    private final List<DiscoveredPlugin<?>> plugins;
    private final List<PluginFailure> failures;

    private PluginRegistry(List<DiscoveredPlugin<?>> plugins, List<PluginFailure> failures) {
        this.plugins = plugins.stream()
                .sorted(Comparator.comparing((DiscoveredPlugin<?> p) -> p.kind()).thenComparing(DiscoveredPlugin::id))
                .toList();
        this.failures = List.copyOf(failures);
    }

    /** A registry over already discovered plugins, e.g. test fakes. */
    public static PluginRegistry of(List<DiscoveredPlugin<?>> plugins, List<PluginFailure> failures) {
        for (DiscoveredPlugin<?> p : plugins) {
            if (!p.kind().service().isInstance(p.provider())) {
                throw new IllegalArgumentException(p.kind().label() + " " + p.id() + ": provider " + p.provider().getClass().getName()
                        + " does not implement " + p.kind().service().getName());
            }
        }
        return new PluginRegistry(plugins, failures);
    }

    /**
     * Loads every provider of the boot layer (the application's module path and class path) and,
     * when {@code pluginsDir} is given and exists, of the jars in it. Never throws for a bad plugin:
     * failures are collected in {@link #failures()}.
     */
    public static PluginRegistry discover(Optional<Path> pluginsDir) {
        List<DiscoveredPlugin<?>> found = new ArrayList<>();
        List<PluginFailure> failures = new ArrayList<>();
        for (PluginKind kind : PluginKind.values()) {
            ProviderScanner.scan(ServiceLoader.load(kind.service()), kind, type -> true, DiscoveredPlugin.BOOT, found, failures);
        }
        if (pluginsDir.isPresent() && Files.isDirectory(pluginsDir.get())) {
            Path dir = pluginsDir.get().toAbsolutePath().normalize();
            String origin = dir.toString();
            for (ModuleLayer layer : PluginLayers.build(dir, failures)) {
                for (PluginKind kind : PluginKind.values()) {
                    // A layer's ServiceLoader also sees the boot layer; keep only this layer's modules.
                    ProviderScanner.scan(ServiceLoader.load(layer, kind.service()), kind,
                            type -> type.getModule().getLayer() == layer, origin, found, failures);
                }
            }
        }
        return new PluginRegistry(found, failures);
    }

    /** Every discovered plugin, by kind then id. */
    public List<DiscoveredPlugin<?>> all() {
        return plugins;
    }

    public List<DiscoveredPlugin<BackendProvider>> backends() {
        return ofKind(PluginKind.BACKEND, BackendProvider.class);
    }

    public List<DiscoveredPlugin<KvCodecProvider>> codecs() {
        return ofKind(PluginKind.CODEC, KvCodecProvider.class);
    }

    public List<DiscoveredPlugin<KvLayoutProvider>> layouts() {
        return ofKind(PluginKind.LAYOUT, KvLayoutProvider.class);
    }

    /** The first installed layout provider with id {@code id}. */
    public Optional<KvLayoutProvider> layout(String id) {
        return layouts().stream().filter(p -> p.id().equals(id)).findFirst().map(DiscoveredPlugin::provider);
    }

    public List<DiscoveredPlugin<ModelPlugin>> models() {
        return ofKind(PluginKind.MODEL, ModelPlugin.class);
    }

    public List<DiscoveredPlugin<DrafterProvider>> drafters() {
        return ofKind(PluginKind.DRAFTER, DrafterProvider.class);
    }

    /** Plugins that failed to load, each named by jar file or provider class. */
    public List<PluginFailure> failures() {
        return failures;
    }

    /** The plugin of {@code kind} with {@code id}; the first one found when the id is duplicated. */
    public Optional<DiscoveredPlugin<?>> find(PluginKind kind, String id) {
        return plugins.stream().filter(p -> p.kind() == kind && p.id().equals(id)).findFirst();
    }

    /** One line per id that several providers of one kind claim, naming every one of them. */
    public List<String> duplicates() {
        Map<String, List<DiscoveredPlugin<?>>> byKey = plugins.stream()
                .collect(Collectors.groupingBy(p -> p.kind().label() + " id '" + p.id() + "'", LinkedHashMap::new, Collectors.toList()));
        List<String> lines = new ArrayList<>();
        byKey.forEach((key, list) -> {
            if (list.size() > 1) {
                lines.add("duplicate " + key + ": provided by " + list.stream()
                        .map(p -> p.provider().getClass().getName() + " in " + p.moduleAndVersion() + " (" + p.origin() + ")")
                        .collect(Collectors.joining(" and ")));
            }
        });
        return lines;
    }

    @SuppressWarnings("unchecked")
    private <T> List<DiscoveredPlugin<T>> ofKind(PluginKind kind, Class<T> type) {
        List<DiscoveredPlugin<T>> out = new ArrayList<>();
        for (DiscoveredPlugin<?> p : plugins) {
            if (p.kind() == kind) out.add((DiscoveredPlugin<T>) p); // of() and discover() checked the type
        }
        return out;
    }
}
