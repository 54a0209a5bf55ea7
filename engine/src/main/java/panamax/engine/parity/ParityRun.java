package panamax.engine.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import panamax.api.error.BadModelFileException;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.model.LoadOptions;
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
        return run(registry, modelDir, reference, kv, backendId, declaredBuffers(reference));
    }

    /**
     * As {@link #run(PluginRegistry, Path, Path, KvScheme, Optional)}, loading the model with derived
     * constants (RoPE frequencies, embedding scale) in {@code buffers} precision, to match how the
     * reference was made.
     */
    public static ParityReport run(PluginRegistry registry, Path modelDir, Path reference, KvScheme kv, Optional<String> backendId,
                                   LoadOptions.BufferPrecision buffers) {
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
             RuntimeModel model = plugin.load(modelDir, backend, LoadOptions.defaults().withBuffers(buffers))) {
            return check.check(model, backend, ref);
        }
    }

    /**
     * The buffer precision a reference declares in the {@code reference.json} beside it
     * ({@code "hf_buffers": "float32" | "stored_dtype"}); {@code FLOAT32}, what transformers'
     * {@code from_pretrained} computes, when it declares none.
     *
     * @throws BadModelFileException when reference.json is unreadable or names another value
     */
    public static LoadOptions.BufferPrecision declaredBuffers(Path reference) {
        Path json = reference.toAbsolutePath().resolveSibling("reference.json");
        if (!Files.isRegularFile(json)) return LoadOptions.BufferPrecision.FLOAT32;
        JsonNode declared;
        try {
            declared = new ObjectMapper().readTree(json.toFile()).path("hf_buffers");
        } catch (IOException e) {
            throw new BadModelFileException(json, "reference.json", "a JSON object", e.getMessage());
        }
        if (declared.isMissingNode()) return LoadOptions.BufferPrecision.FLOAT32;
        return switch (declared.asText()) {
            case "float32" -> LoadOptions.BufferPrecision.FLOAT32;
            case "stored_dtype" -> LoadOptions.BufferPrecision.STORED_DTYPE;
            default -> throw new BadModelFileException(json, "hf_buffers", "\"float32\" or \"stored_dtype\"", declared.toString());
        };
    }
}
