package panamax.app.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import panamax.api.model.LoadOptions;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The model and backend flags of {@code generate} and {@code chat}. */
public final class ModelOptions {
    @Option(names = "--model", paramLabel = "DIR",
            description = "a Hugging Face model directory (config.json, safetensors, tokenizer.json); "
                    + "default: the bundled demo model (docs/demo-model.md)")
    Path model;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    private boolean bundled;

    /**
     * The model directory: --model, else the bundled demo model (extracted on first use).
     *
     * @throws ParameterException when the demo model cannot be extracted (an unwritable cache folder)
     */
    Path directory() {
        if (model == null) {
            try {
                model = DemoModel.directory();
            } catch (java.io.UncheckedIOException e) {
                throw new ParameterException(command.commandLine(), e.getMessage()
                        + "; set PANAMAX_CACHE to a writable folder, or pass --model DIR");
            }
            bundled = true;
        }
        return model;
    }

    /** How messages name the model: its directory, or the bundled demo model's name and place. */
    String displayName() {
        Path dir = directory();
        return bundled ? "the bundled demo model " + DemoModel.NAME + " (" + dir + ")" : dir.toString();
    }

    @Option(names = "--backend", paramLabel = "ID", description = "backend id (default: the planner's choice)")
    String backend;

    @Option(names = "--weights-memory", paramLabel = "auto|map|copy", defaultValue = "auto",
            description = "map: weights stay memory-mapped from the checkpoint (least memory); copy: copied at load into"
                    + " huge-page-backed memory (their size again in RAM; faster decode where 4 KiB file pages are slow);"
                    + " auto (default): copy where the OS offers transparent huge pages and a file takes at most half of"
                    + " the available memory, else map")
    String weightsMemory;

    @Option(names = "--progress", paramLabel = "auto|always|never", defaultValue = "auto",
            description = "progress bars on standard error for model load and long prefills: auto (only when standard error"
                    + " is a terminal), always, never")
    String progress;

    /** What is wrong with --progress or --weights-memory, or null. */
    String problem() {
        if (!List.of("auto", "always", "never").contains(progress)) return "--progress: expected auto, always or never, found '" + progress + "'";
        if (!List.of("auto", "map", "copy").contains(weightsMemory)) return "--weights-memory: expected auto, map or copy, found '" + weightsMemory + "'";
        return null;
    }

    /** Whether progress bars are drawn (see {@link ProgressMode}). */
    boolean progressEnabled() {
        return progressMode().enabled();
    }

    private ProgressMode progressMode() {
        return switch (progress) {
            case "auto" -> ProgressMode.AUTO;
            case "always" -> ProgressMode.ALWAYS;
            case "never" -> ProgressMode.NEVER;
            default -> throw new IllegalArgumentException("--progress: expected auto, always or never, found '" + progress + "'");
        };
    }

    private LoadOptions.Weights weights() {
        return switch (weightsMemory) {
            case "auto" -> LoadOptions.Weights.AUTO;
            case "map" -> LoadOptions.Weights.MAP;
            case "copy" -> LoadOptions.Weights.COPY;
            default -> throw new IllegalArgumentException("--weights-memory: expected auto, map or copy, found '" + weightsMemory + "'");
        };
    }

    /**
     * Loads the model, printing loading stages on {@code err} and, when enabled, a bar of the bytes
     * read or copied so far. Callers check {@link #problem()} first.
     */
    ModelSession open(Optional<Path> pluginsDir, KvScheme kv, int prefillChunk, PrintWriter err) {
        LoadOptions load = LoadOptions.defaults().withWeights(weights());
        if (progressEnabled()) {
            ProgressBar bar = new ProgressBar(err, "loading");
            load = load.withProgress((what, done, total) -> bar.bytes(done, total, what));
        }
        PluginRegistry registry = PluginRegistry.discover(pluginsDir);
        err.println("loading " + displayName() + " ...");
        return ModelSession.open(registry, directory(), kv, Optional.ofNullable(backend), prefillChunk, line -> err.println(line), load);
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
