package panamax.api.model;

import java.util.Objects;

/**
 * A function call a model made, as OpenAI's {@code tool_calls} entries carry it.
 *
 * @param id        the call's id, which the tool's answer refers to
 * @param name      the function's name
 * @param arguments the arguments as JSON text (an object)
 * @since 0.3
 */
public record ToolCall(String id, String name, String arguments) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
        if (name.isBlank()) throw new IllegalArgumentException("tool call name must not be blank");
    }
}
