package panamax.engine.wiring;

import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import com.google.inject.spi.Message;
import java.util.List;
import java.util.Map;
import panamax.api.model.ModelPlugin;
import panamax.engine.plan.ExecutionPlanner;
import panamax.engine.plugins.PluginRegistry;

/**
 * Creates the engine's Guice injector over a {@link PluginRegistry}. Stateless.
 *
 * {@snippet :
 * Injector injector = Wiring.injector(PluginRegistry.discover(Optional.of(Path.of("plugins"))));
 * ExecutionPlanner planner = injector.getInstance(ExecutionPlanner.class);
 * }
 */
public final class Wiring {
    private Wiring() {
    }

    /**
     * An injector binding every plugin of the registry.
     *
     * @throws PluginConflictException when two plugins of one kind share an id, naming both
     */
    public static Injector injector(PluginRegistry registry) {
        try {
            return Guice.createInjector(new PluginModule(registry));
        } catch (CreationException e) {
            List<String> conflicts = registry.duplicates();
            if (conflicts.isEmpty()) conflicts = e.getErrorMessages().stream().map(Message::getMessage).toList();
            throw new PluginConflictException(conflicts, e);
        }
    }

    /** The planner of a fresh injector over {@code registry}. */
    public static ExecutionPlanner planner(PluginRegistry registry) {
        return injector(registry).getInstance(ExecutionPlanner.class);
    }

    /** The model plugins by id, as injected. */
    public static Map<String, ModelPlugin> models(Injector injector) {
        return injector.getInstance(Key.get(new TypeLiteral<Map<String, ModelPlugin>>() { }));
    }
}
