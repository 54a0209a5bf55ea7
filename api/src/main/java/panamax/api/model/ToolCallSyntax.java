package panamax.api.model;

import java.util.Objects;

/**
 * How a model writes one tool call as a JSON object, so that a caller can force a call: the text
 * that opens it, then {@code {"<nameField>": "get_weather", "<argumentsField>": {...}}}.
 * For example Qwen's {@code <tool_call>\n{"name": …, "arguments": …}} or Llama 3.1's
 * {@code {"name": …, "parameters": …}}.
 *
 * @param opening        the text written before the call object (may be empty); special tokens appear as their text
 * @param nameField      the object's field that holds the function's name
 * @param argumentsField the object's field that holds the arguments object
 * @since 0.3
 */
public record ToolCallSyntax(String opening, String nameField, String argumentsField) {
    public ToolCallSyntax {
        Objects.requireNonNull(opening, "opening");
        Objects.requireNonNull(nameField, "nameField");
        Objects.requireNonNull(argumentsField, "argumentsField");
        if (nameField.isEmpty() || argumentsField.isEmpty() || nameField.equals(argumentsField)) {
            throw new IllegalArgumentException("tool call fields must be two different non-empty names, found '" + nameField
                    + "' and '" + argumentsField + "'");
        }
    }
}
