package panamax.models.tools;

import java.util.ArrayList;
import java.util.List;
import panamax.api.model.ToolCallEvent;
import panamax.api.model.ToolCallParser;

/**
 * Llama 3.1's JSON tool calls: an answer that begins (after whitespace, optionally after
 * {@code <|python_tag|>}) with {@code {"name": …, "parameters": …}}, one or more such objects
 * separated by {@code ;}, as vLLM's {@code llama3_json} parser reads them. An answer that begins
 * otherwise is text from its first character; whatever follows the calls that is not another call
 * object is text too.
 */
final class Llama3JsonParser implements ToolCallParser {
    static final String PYTHON_TAG = "<|python_tag|>";
    private static final List<String> ARGUMENT_FIELDS = List.of("parameters", "arguments");

    private enum Mode { START, CALLS, TEXT }

    private final StringBuilder held = new StringBuilder();
    /** What START dropped before the first call (whitespace, the tag): given back if no call follows. */
    private String opening = "";
    private boolean called;
    private Mode mode = Mode.START;

    @Override
    public List<ToolCallEvent> feed(String text) {
        List<ToolCallEvent> out = new ArrayList<>();
        if (mode == Mode.TEXT) {
            text(out, text);
            return out;
        }
        held.append(text);
        if (mode == Mode.START) {
            int at = 0;
            while (at < held.length() && Character.isWhitespace(held.charAt(at))) at++;
            if (at == held.length()) return out;
            String rest = held.substring(at);
            if (rest.startsWith(PYTHON_TAG)) {
                opening = held.substring(0, at + PYTHON_TAG.length());
                held.delete(0, at + PYTHON_TAG.length());
                mode = Mode.CALLS;
            } else if (rest.startsWith("{")) {
                opening = held.substring(0, at);
                held.delete(0, at);
                mode = Mode.CALLS;
            } else if (PYTHON_TAG.startsWith(rest)) {
                return out; // may still become the tag
            } else {
                toText(out);
                return out;
            }
        }
        readCalls(out);
        return out;
    }

    /** Emits each complete call object; turns to text at the first thing that is not one. */
    private void readCalls(List<ToolCallEvent> out) {
        while (true) {
            int at = 0;
            while (at < held.length() && (Character.isWhitespace(held.charAt(at)) || held.charAt(at) == ';')) at++;
            if (at == held.length()) return;
            int end = CallJson.valueEnd(held, at);
            if (end == -1) return;
            if (end == -2 || held.charAt(at) != '{') {
                toText(out);
                return;
            }
            var call = CallJson.call(held.substring(at, end), "name", ARGUMENT_FIELDS);
            if (call.isEmpty()) {
                toText(out);
                return;
            }
            out.add(call.get());
            called = true;
            held.delete(0, end);
        }
    }

    private void toText(List<ToolCallEvent> out) {
        mode = Mode.TEXT;
        text(out, (called ? "" : opening) + held);
        held.setLength(0);
    }

    @Override
    public List<ToolCallEvent> finish() {
        List<ToolCallEvent> out = new ArrayList<>();
        if (mode == Mode.CALLS && held.toString().isBlank()) {
            held.setLength(0);
            return out;
        }
        text(out, (mode == Mode.CALLS && !called ? opening : "") + held);
        held.setLength(0);
        mode = Mode.TEXT;
        return out;
    }

    private static void text(List<ToolCallEvent> out, String text) {
        if (!text.isEmpty()) out.add(new ToolCallEvent.Text(text));
    }
}
