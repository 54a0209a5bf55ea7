package panamax.app.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import panamax.api.plan.KvScheme;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;
import picocli.CommandLine.Option;

/** The model and backend flags of {@code generate} and {@code chat}. */
public final class ModelOptions {
    @Option(names = "--model", paramLabel = "DIR", required = true,
            description = "a Hugging Face model directory (config.json, safetensors, tokenizer.json)")
    Path model;

    @Option(names = "--backend", paramLabel = "ID", description = "backend id (default: the planner's choice)")
    String backend;

    /** Loads the model, printing loading stages on {@code err}. */
    ModelSession open(Optional<Path> pluginsDir, KvScheme kv, int prefillChunk, PrintWriter err) {
        PluginRegistry registry = PluginRegistry.discover(pluginsDir);
        err.println("loading " + model + " ...");
        return ModelSession.open(registry, model, kv, Optional.ofNullable(backend), prefillChunk, line -> err.println(line));
    }
}
