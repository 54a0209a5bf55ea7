package panamax.models.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import panamax.api.model.ToolCallEvent;
import panamax.api.model.ToolCallParser;

/**
 * Mistral's tool calls after the {@code [TOOL_CALLS]} token, in either of the tokenizer versions'
 * shapes: a JSON array of {@code {"name": …, "arguments": …}} objects (v3, Mistral 7B v0.3,
 * Mixtral, Nemo), or {@code name[ARGS]{…}} with an optional {@code [CALL_ID]id} after the name
 * (v11 and later). Text around calls passes through; a marker followed by anything else stays
 * text, marker included.
 */
final class MistralParser implements ToolCallParser {
    static final String TOOL_CALLS = "[TOOL_CALLS]";
    static final String ARGS = "[ARGS]";
    static final String CALL_ID = "[CALL_ID]";
    private static final List<String> ARGUMENT_FIELDS = List.of("arguments", "parameters");

    private final StringBuilder held = new StringBuilder();
    private boolean afterMarker;

    @Override
    public List<ToolCallEvent> feed(String text) {
        held.append(text);
        List<ToolCallEvent> out = new ArrayList<>();
        while (true) {
            if (!afterMarker) {
                int at = held.indexOf(TOOL_CALLS);
                if (at < 0) {
                    int keep = CallJson.partialMarker(held, TOOL_CALLS);
                    text(out, held.substring(0, held.length() - keep));
                    held.delete(0, held.length() - keep);
                    return out;
                }
                text(out, held.substring(0, at));
                held.delete(0, at + TOOL_CALLS.length());
                afterMarker = true;
            } else if (!readCalls(out)) {
                return out;
            }
        }
    }

    /** Reads the calls after a marker; false when they are not complete yet. */
    private boolean readCalls(List<ToolCallEvent> out) {
        int at = 0;
        while (at < held.length() && Character.isWhitespace(held.charAt(at))) at++;
        if (at == held.length()) return false;
        if (held.charAt(at) == '[') {
            int end = CallJson.valueEnd(held, at);
            if (end == -1) return false;
            String array = held.substring(0, end);
            held.delete(0, end);
            afterMarker = false;
            var calls = CallJson.calls(array.strip(), "name", ARGUMENT_FIELDS);
            if (calls.isPresent()) out.addAll(calls.get()); else out.add(new ToolCallEvent.Text(TOOL_CALLS + array));
            return true;
        }
        int args = held.indexOf(ARGS);
        if (args < 0) return false;
        int end = CallJson.valueEnd(held, args + ARGS.length());
        if (end == -1) return false;
        String raw = held.substring(0, end < 0 ? args + ARGS.length() : end);
        held.delete(0, raw.length());
        afterMarker = false;
        String head = raw.substring(0, args);
        int id = head.indexOf(CALL_ID);
        String function = (id < 0 ? head : head.substring(0, id)).strip();
        boolean named = !function.isEmpty() && function.chars().noneMatch(c -> Character.isWhitespace(c) || c == '{' || c == '[');
        Optional<ToolCallEvent.Call> call = end < 0 || !named ? Optional.empty()
                : CallJson.tree(raw.substring(args + ARGS.length()).strip())
                        .filter(JsonNode::isObject)
                        .map(n -> new ToolCallEvent.Call(function, n.toString()));
        if (call.isPresent()) out.add(call.get()); else out.add(new ToolCallEvent.Text(TOOL_CALLS + raw));
        return true;
    }

    @Override
    public List<ToolCallEvent> finish() {
        List<ToolCallEvent> out = new ArrayList<>();
        text(out, (afterMarker ? TOOL_CALLS : "") + held);
        held.setLength(0);
        afterMarker = false;
        return out;
    }

    private static void text(List<ToolCallEvent> out, String text) {
        if (!text.isEmpty()) out.add(new ToolCallEvent.Text(text));
    }
}
