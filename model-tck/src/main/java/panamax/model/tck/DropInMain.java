package panamax.model.tck;

import java.nio.file.Path;
import java.util.Optional;
import panamax.api.model.LoadOptions;
import panamax.api.plan.KvScheme;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;

/**
 * The child JVM of {@link PluginDropIn}: discovers plugins from a plugins folder as the launcher
 * does, prints where each model plugin came from ({@code model-plugin ID MODULE ORIGIN}), then the
 * parity JSON of a model folder against its {@code reference.safetensors}.
 * Arguments: model folder, plugins folder, backend id, buffer precision.
 */
public final class DropInMain {
    private DropInMain() {
    }

    public static void main(String[] args) {
        Path model = Path.of(args[0]);
        PluginRegistry registry = PluginRegistry.discover(Optional.of(Path.of(args[1])));
        registry.failures().forEach(f -> System.out.println("failure " + f));
        registry.models().forEach(p -> System.out.println("model-plugin " + p.id() + " " + p.moduleAndVersion() + " " + p.origin()));
        System.out.println(ParityRun.run(registry, model, model.resolve("reference.safetensors"), KvScheme.identity(), Optional.of(args[2]),
                LoadOptions.BufferPrecision.valueOf(args[3])).toJson());
    }
}
