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

    /** Warns on {@code err} when a call would run past the positions the model was trained for. */
    static void warnIfPastTrainedContext(ModelSession session, int promptTokens, int maxTokens, PrintWriter err) {
        long total = (long) promptTokens + maxTokens;
        int trained = session.spec().maxPositions();
        if (trained > 0 && total > trained) {
            err.println("warning: " + promptTokens + " prompt tokens + --max-tokens " + maxTokens + " = " + total
                    + " exceeds the " + trained + " positions the model was trained for; text past them may degrade");
        }
    }
}
