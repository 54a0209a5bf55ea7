package panamax.server.scheduler;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.speculative.Speculation;
import panamax.engine.speculative.SpeculationPlan;
import panamax.engine.speculative.SpeculationPlanner;
import panamax.engine.speculative.SpeculationRequest;

/** Speculations the tests run: prompt lookup, and a draft model that is the target itself or a copy of it cut to fewer layers. */
final class Drafts {
    private Drafts() {
    }

    static Speculation ngram(ModelSession target, int draftTokens) {
        // n-grams from 1 token: more (and worse) drafts, so more acceptances and rejections to check
        return open(target, new SpeculationRequest(Optional.of("ngram"), Optional.empty(), OptionalInt.of(draftTokens), Map.of("ngram_min", "1")));
    }

    static Speculation draftModel(ModelSession target, Path draft, int draftTokens) {
        return open(target, new SpeculationRequest(Optional.empty(), Optional.of(draft), OptionalInt.of(draftTokens), Map.of()));
    }

    static Speculation open(ModelSession target, SpeculationRequest request) {
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        SpeculationPlan plan = new SpeculationPlanner(registry).resolve(request).orElseThrow();
        return Speculation.open(plan, target, registry, line -> { });
    }

    /**
     * A model folder in {@code into} that reads {@code source}'s files (linked) with a config of
     * only its first {@code layers} layers: a cheap draft that agrees with its target part of the time.
     */
    static Path truncated(Path source, int layers, Path into) {
        try {
            ObjectMapper json = new ObjectMapper();
            ObjectNode config = (ObjectNode) json.readTree(source.resolve("config.json").toFile());
            for (String key : new String[] {"num_hidden_layers", "n_layer"}) if (config.has(key)) config.put(key, layers);
            if (config.has("layer_types")) {
                ArrayNode types = (ArrayNode) config.get("layer_types");
                while (types.size() > layers) types.remove(types.size() - 1);
            }
            Files.createDirectories(into);
            try (var files = Files.list(source)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (!f.getFileName().toString().equals("config.json")) Files.createSymbolicLink(into.resolve(f.getFileName()), f.toAbsolutePath());
                }
            }
            json.writerWithDefaultPrettyPrinter().writeValue(into.resolve("config.json").toFile(), config);
            return into;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
