package panamax.engine.plan;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import panamax.api.error.BadModelFileException;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.model.ModelPlugin;
import panamax.api.model.ModelSpec;

/**
 * Picks the model plugin for a Hugging Face model directory by its {@code config.json}
 * {@code model_type}, and lets that plugin describe the model.
 *
 * @param plugin the model plugin that reads the directory
 * @param spec   the model as the planner sees it
 */
public record ModelResolver(String plugin, ModelSpec spec) {

    /**
     * Describes the model in {@code directory} with the plugin that declares its {@code model_type}.
     *
     * @throws BadModelFileException           when config.json is missing, unreadable or has no model_type
     * @throws UnsupportedCombinationException when no installed model plugin reads that model_type
     */
    public static ModelResolver resolve(Path directory, Map<String, ModelPlugin> plugins) {
        Path config = directory.resolve("config.json");
        if (!Files.isRegularFile(config)) {
            throw new BadModelFileException(config, "file", "a Hugging Face config.json in the model directory",
                    Files.isDirectory(directory) ? "no such file" : "no such directory " + directory);
        }
        String modelType = modelType(config);
        for (var entry : plugins.entrySet()) {
            if (entry.getValue().modelTypes().contains(modelType)) {
                return new ModelResolver(entry.getKey(), entry.getValue().describe(directory));
            }
        }
        TreeSet<String> known = new TreeSet<>();
        plugins.values().forEach(p -> known.addAll(p.modelTypes()));
        throw new UnsupportedCombinationException("no model plugin reads model_type '" + modelType + "' of " + config,
                List.of(plugins.isEmpty() ? "no model plugins are installed"
                        : "installed model plugins read: " + String.join(", ", known)));
    }

    private static String modelType(Path config) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(config.toFile());
        } catch (JacksonException e) {
            throw new BadModelFileException(config, "JSON", "a JSON object", e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadModelFileException(config, "cannot read it", e);
        }
        JsonNode type = root == null ? null : root.get("model_type");
        if (type == null || !type.isTextual() || type.asText().isBlank()) {
            throw new BadModelFileException(config, "field model_type", "a non-empty string such as \"llama\"",
                    type == null ? "no such field" : type.toString());
        }
        return type.asText();
    }
}
