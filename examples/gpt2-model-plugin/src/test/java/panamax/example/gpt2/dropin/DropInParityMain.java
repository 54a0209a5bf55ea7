package panamax.example.gpt2.dropin;

import java.nio.file.Path;
import java.util.Optional;
import panamax.api.plan.KvScheme;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;

/**
 * Runs in a child JVM whose module path holds panamax (api, engine, backend, codecs, layouts) but
 * not this plugin: discovers plugins from {@code args[1]} like the launcher does, prints where the
 * gpt2 model plugin came from, then the parity JSON for the model folder {@code args[0]}.
 */
public final class DropInParityMain {
    private DropInParityMain() {
    }

    public static void main(String[] args) {
        Path model = Path.of(args[0]);
        PluginRegistry registry = PluginRegistry.discover(Optional.of(Path.of(args[1])));
        registry.failures().forEach(f -> System.out.println("failure " + f));
        registry.models().forEach(p -> System.out.println("model-plugin " + p.id() + " " + p.moduleAndVersion() + " " + p.origin()));
        System.out.println(ParityRun.run(registry, model, model.resolve("reference.safetensors"), KvScheme.identity(), Optional.of("java")).toJson());
    }
}
