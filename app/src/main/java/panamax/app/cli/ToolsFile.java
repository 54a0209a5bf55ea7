package panamax.app.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import panamax.api.model.ToolDefinition;

/**
 * Reads {@code chat --tools FILE}: a JSON array of OpenAI tools ({@code {"type": "function",
 * "function": {"name", "description", "parameters"}}}) or of bare function objects.
 */
final class ToolsFile {
    private ToolsFile() {
    }

    /** @throws IllegalArgumentException naming the file, the entry and the field that is wrong */
    static List<ToolDefinition> read(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(file));
        } catch (JacksonException e) {
            throw new IllegalArgumentException(file + ": not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read: " + e.getMessage());
        }
        if (root == null || !root.isArray() || root.isEmpty()) throw new IllegalArgumentException(file + ": expected a non-empty JSON array of tools");
        List<ToolDefinition> tools = new ArrayList<>();
        for (int i = 0; i < root.size(); i++) {
            JsonNode entry = root.get(i);
            JsonNode function = entry.has("function") ? entry.get("function") : entry;
            String at = file + ": [" + i + "]";
            if (entry.has("type") && !"function".equals(entry.get("type").asText())) {
                throw new IllegalArgumentException(at + ".type: expected \"function\", found " + entry.get("type"));
            }
            if (!function.path("name").isTextual() || function.get("name").asText().isBlank()) {
                throw new IllegalArgumentException(at + ": expected a function \"name\" string");
            }
            JsonNode parameters = function.get("parameters");
            if (parameters != null && !parameters.isObject()) throw new IllegalArgumentException(at + ".parameters: expected a JSON Schema object");
            tools.add(new ToolDefinition(function.get("name").asText(), function.path("description").isTextual() ? function.get("description").asText() : null,
                    parameters == null ? null : parameters.toString()));
        }
        return tools;
    }
}
