package panamax.models.tools;

import java.util.ArrayList;
import java.util.List;
import panamax.api.model.ToolCallEvent;
import panamax.api.model.ToolCallParser;

/**
 * Calls written as a JSON object between an open and a close tag, as Hermes-style models (Qwen 2
 * and 3) write {@code <tool_call>\n{"name": …, "arguments": …}\n</tool_call>}, any number of
 * times among ordinary text. Text that may begin the open tag is held; a tagged body that is not
 * a call object stays text, tags included. A call left unclosed at the end still counts when its
 * body is a whole call object.
 */
final class TaggedCallParser implements ToolCallParser {
    private static final List<String> ARGUMENT_FIELDS = List.of("arguments", "parameters");

    private final String open;
    private final String close;
    private final StringBuilder held = new StringBuilder();
    private boolean inCall;

    TaggedCallParser(String open, String close) {
        this.open = open;
        this.close = close;
    }

    @Override
    public List<ToolCallEvent> feed(String text) {
        held.append(text);
        List<ToolCallEvent> out = new ArrayList<>();
        while (true) {
            if (!inCall) {
                int at = held.indexOf(open);
                if (at < 0) {
                    int keep = CallJson.partialMarker(held, open);
                    text(out, held.substring(0, held.length() - keep));
                    held.delete(0, held.length() - keep);
                    return out;
                }
                text(out, held.substring(0, at));
                held.delete(0, at + open.length());
                inCall = true;
            } else {
                int at = held.indexOf(close);
                if (at < 0) return out;
                String body = held.substring(0, at);
                held.delete(0, at + close.length());
                inCall = false;
                out.add(CallJson.call(body.strip(), "name", ARGUMENT_FIELDS)
                        .<ToolCallEvent>map(c -> c)
                        .orElseGet(() -> new ToolCallEvent.Text(open + body + close)));
            }
        }
    }

    @Override
    public List<ToolCallEvent> finish() {
        List<ToolCallEvent> out = new ArrayList<>();
        String rest = held.toString();
        held.setLength(0);
        if (inCall) {
            inCall = false;
            out.add(CallJson.call(rest.strip(), "name", ARGUMENT_FIELDS)
                    .<ToolCallEvent>map(c -> c)
                    .orElseGet(() -> new ToolCallEvent.Text(open + rest)));
        } else {
            text(out, rest);
        }
        return out;
    }

    private static void text(List<ToolCallEvent> out, String text) {
        if (!text.isEmpty()) out.add(new ToolCallEvent.Text(text));
    }
}
