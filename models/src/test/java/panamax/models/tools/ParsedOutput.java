package panamax.models.tools;

import java.util.ArrayList;
import java.util.List;
import panamax.api.model.ToolCallEvent;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolCallParser;

/** A whole answer's events from a parser, text runs merged, so that different splits of one text compare equal. */
record ParsedOutput(List<ToolCallEvent> events) {
    /** Feeds {@code pieces} in order to a fresh parser of {@code format}, then finishes it. */
    static ParsedOutput of(ToolCallFormat format, List<String> pieces) {
        ToolCallParser parser = format.newParser();
        List<ToolCallEvent> raw = new ArrayList<>();
        for (String piece : pieces) raw.addAll(parser.feed(piece));
        raw.addAll(parser.finish());
        return new ParsedOutput(merge(raw));
    }

    /** Fed as one piece. */
    static ParsedOutput whole(ToolCallFormat format, String text) {
        return of(format, List.of(text));
    }

    /** Fed one character at a time (a surrogate pair stays together). */
    static ParsedOutput byCharacter(ToolCallFormat format, String text) {
        return of(format, text.codePoints().mapToObj(Character::toString).toList());
    }

    static List<ToolCallEvent> merge(List<ToolCallEvent> events) {
        List<ToolCallEvent> out = new ArrayList<>();
        for (ToolCallEvent e : events) {
            if (e instanceof ToolCallEvent.Text t && !out.isEmpty() && out.getLast() instanceof ToolCallEvent.Text before) {
                out.set(out.size() - 1, new ToolCallEvent.Text(before.text() + t.text()));
            } else if (!(e instanceof ToolCallEvent.Text t && t.text().isEmpty())) {
                out.add(e);
            }
        }
        return out;
    }

    List<ToolCallEvent.Call> calls() {
        return events.stream().filter(e -> e instanceof ToolCallEvent.Call).map(e -> (ToolCallEvent.Call) e).toList();
    }

    String text() {
        StringBuilder b = new StringBuilder();
        for (ToolCallEvent e : events) if (e instanceof ToolCallEvent.Text t) b.append(t.text());
        return b.toString();
    }
}
