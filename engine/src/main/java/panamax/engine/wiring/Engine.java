package panamax.engine.wiring;

import com.google.inject.Injector;
import java.util.Map;
import panamax.api.model.ModelPlugin;
import panamax.engine.plan.ExecutionPlanner;
import panamax.engine.plugins.PluginRegistry;

/**
 * The engine's services, taken from one injector so that callers need not know Guice.
 *
 * @param registry the discovered plugins
 * @param planner  the planner over them
 * @param models   the model plugins by id
 */
public record Engine(PluginRegistry registry, ExecutionPlanner planner, Map<String, ModelPlugin> models) {
    public Engine {
        models = Map.copyOf(models);
    }

    /**
     * Wires the registry's plugins.
     *
     * @throws PluginConflictException when two plugins of one kind share an id
     */
    public static Engine start(PluginRegistry registry) {
        Injector injector = Wiring.injector(registry);
        return new Engine(registry, injector.getInstance(ExecutionPlanner.class), Wiring.models(injector));
    }
}
