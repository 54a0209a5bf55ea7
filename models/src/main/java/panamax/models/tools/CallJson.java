package panamax.models.tools;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import panamax.api.model.ToolCallEvent;

/** JSON helpers the parsers share: where a JSON value ends, and reading a call object. */
final class CallJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CallJson() {
    }

    /**
     * The index just past the JSON object or array that starts at {@code from} (after whitespace),
     * -1 when it is not complete yet, or -2 when no object or array starts there. Counts brackets
     * outside strings only; whether the value is valid JSON is checked when it is parsed.
     */
    static int valueEnd(CharSequence text, int from) {
        int i = from;
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) i++;
        if (i == text.length()) return -1;
        char first = text.charAt(i);
        if (first != '{' && first != '[') return -2;
        int depth = 0;
        boolean inString = false;
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (inString) {
                if (c == '\\') i++;
                else if (c == '"') inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) return i + 1;
            }
        }
        return -1;
    }

    /**
     * A call from a JSON object with a string field {@code nameField} and arguments under one of
     * {@code argumentFields} (an object, or a string holding one; absent means none).
     */
    static Optional<ToolCallEvent.Call> call(JsonNode node, String nameField, List<String> argumentFields) {
        if (node == null || !node.isObject()) return Optional.empty();
        JsonNode name = node.get(nameField);
        if (name == null || !name.isTextual() || name.asText().isBlank()) return Optional.empty();
        JsonNode arguments = null;
        for (String field : argumentFields) {
            if (node.has(field)) {
                arguments = node.get(field);
                break;
            }
        }
        if (arguments == null || arguments.isNull()) return Optional.of(new ToolCallEvent.Call(name.asText(), "{}"));
        if (arguments.isTextual()) arguments = tree(arguments.asText()).orElse(null);
        if (arguments == null || !arguments.isObject()) return Optional.empty();
        return Optional.of(new ToolCallEvent.Call(name.asText(), arguments.toString()));
    }

    /** {@link #call(JsonNode, String, List)} of the JSON text {@code json}. */
    static Optional<ToolCallEvent.Call> call(String json, String nameField, List<String> argumentFields) {
        return tree(json).flatMap(node -> call(node, nameField, argumentFields));
    }

    /** The calls of a JSON array of call objects, or empty when any element is not one. */
    static Optional<List<ToolCallEvent>> calls(String json, String nameField, List<String> argumentFields) {
        Optional<JsonNode> tree = tree(json);
        if (tree.isEmpty() || !tree.get().isArray() || tree.get().isEmpty()) return Optional.empty();
        List<ToolCallEvent> out = new ArrayList<>();
        for (JsonNode element : tree.get()) {
            Optional<ToolCallEvent.Call> call = call(element, nameField, argumentFields);
            if (call.isEmpty()) return Optional.empty();
            out.add(call.get());
        }
        return Optional.of(out);
    }

    /** The JSON value of {@code text}, or empty when it is not exactly one valid value. */
    static Optional<JsonNode> tree(String text) {
        try {
            return Optional.ofNullable(JSON.readTree(text)).filter(n -> !n.isMissingNode());
        } catch (JacksonException e) {
            return Optional.empty();
        }
    }

    /** Length of the longest suffix of {@code text} that is a proper prefix of {@code marker}: text that might begin it. */
    static int partialMarker(CharSequence text, String marker) {
        int most = Math.min(text.length(), marker.length() - 1);
        for (int k = most; k > 0; k--) {
            boolean match = true;
            for (int j = 0; j < k && match; j++) match = text.charAt(text.length() - k + j) == marker.charAt(j);
            if (match) return k;
        }
        return 0;
    }
}
