package panamax.api.model;

import java.util.Objects;

/**
 * What a {@link ToolCallParser} recognized in a model's output: plain text, or one whole call.
 *
 * @since 0.3
 */
public sealed interface ToolCallEvent {
    /** Text that is not part of a call; may be empty. */
    record Text(String text) implements ToolCallEvent {
        public Text {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * A complete call.
     *
     * @param name      the function's name
     * @param arguments its arguments as JSON text (an object)
     */
    record Call(String name, String arguments) implements ToolCallEvent {
        public Call {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(arguments, "arguments");
        }
    }
}
