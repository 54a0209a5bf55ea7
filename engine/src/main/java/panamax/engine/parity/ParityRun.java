package panamax.engine.parity;

import java.nio.file.Path;
import java.util.Optional;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.model.ModelPlugin;
import panamax.api.model.RuntimeModel;
import panamax.api.plan.KvScheme;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.engine.plan.ModelResolver;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.wiring.Engine;

/**
 * Runs {@link ParityCheck} for a model directory and a reference file end to end: resolves the
 * model plugin by {@code model_type}, creates the planned backend, loads the model, checks it, and
 * releases everything. Stateless.
 *
 * {@snippet :
 * ParityReport report = ParityRun.run(PluginRegistry.discover(Optional.empty()), Path.of("llama-tiny"),
 *         Path.of("llama-tiny/reference.safetensors"), KvScheme.identity(), Optional.empty());
 * System.out.println(report.toJson());
 * }
 */
public final class ParityRun {
    private ParityRun() {
    }

    /**
     * @param backendId a backend id, or empty for the planner's choice
     * @throws panamax.api.error.BadModelFileException when the model or reference is malformed
     * @throws UnsupportedCombinationException when no plugin reads the model or no plan fits
     */
    public static ParityReport run(PluginRegistry registry, Path modelDir, Path reference, KvScheme kv, Optional<String> backendId) {
        ParityReference ref = ParityReference.read(reference);
        Engine engine = Engine.start(registry);
        ModelResolver resolved = ModelResolver.resolve(modelDir, engine.models());
        ModelPlugin plugin = engine.models().get(resolved.plugin());
        String backendChoice = backendId.orElseGet(() -> engine.planner().resolve(new panamax.api.plan.ExecutionRequirements(
                resolved.spec(), Optional.empty(), kv, panamax.api.plan.Batching.SERIAL, panamax.api.plan.Method.AUTOREGRESSIVE,
                1, 0, 0, false)).backend().id());
        BackendProvider provider = registry.backends().stream().filter(p -> p.id().equals(backendChoice)).findFirst()
                .orElseThrow(() -> new UnsupportedCombinationException("backend '" + backendChoice + "' is not installed",
                        java.util.List.of("installed backends: " + registry.backends().stream().map(p -> p.id()).toList())))
                .provider();
        ParityCheck check = new ParityCheck(engine.planner(), KvStateFactory.of(registry), kv);
        try (Backend backend = provider.create(BackendOptions.defaults());
             RuntimeModel model = plugin.load(modelDir, backend)) {
            return check.check(model, backend, ref);
        }
    }
}
