package panamax.engine.speculative;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A draft model made from its target without new weights: a folder whose files link to the target's
 * and whose config.json keeps only the first layers. It shares the target's tokenizer by
 * construction and agrees with it part of the time (benchmarks and tests use it).
 */
public final class TruncatedDraft {
    private TruncatedDraft() {
    }

    /**
     * Writes into {@code into} a model folder reading {@code source}'s files with a config of only its
     * first {@code layers} layers, and returns {@code into}.
     *
     * @throws IllegalArgumentException when the config names no layer count or has no more than {@code layers}
     */
    public static Path write(Path source, int layers, Path into) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode config = (ObjectNode) json.readTree(source.resolve("config.json").toFile());
        String key = config.has("num_hidden_layers") ? "num_hidden_layers" : "n_layer"; // GPT-2 names it n_layer
        int had = config.path(key).asInt(0);
        if (had == 0) throw new IllegalArgumentException("--draft-layers: " + source.resolve("config.json") + " has no num_hidden_layers");
        if (layers >= had) throw new IllegalArgumentException("--draft-layers " + layers + ": the target has only " + had + " layers");
        config.put(key, layers);
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
    }
}
