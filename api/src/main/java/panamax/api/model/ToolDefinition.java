package panamax.api.model;

import java.util.Objects;

/**
 * A function the model may call, as OpenAI's {@code tools} entries of type {@code function}
 * describe it; chat templates receive it as {@code {"type": "function", "function": {...}}}.
 *
 * @param name        the function's name
 * @param description what it does, or null
 * @param parameters  the JSON Schema of its arguments as JSON text, or null when it takes none
 * @since 0.3
 */
public record ToolDefinition(String name, String description, String parameters) {
    public ToolDefinition {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) throw new IllegalArgumentException("tool name must not be blank");
    }
}
