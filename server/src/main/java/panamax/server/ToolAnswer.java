package panamax.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import panamax.api.model.ToolCall;
import panamax.api.model.ToolCallEvent;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolCallParser;
import panamax.api.model.ToolCallSyntax;

/**
 * Turns one chat answer's tokens into what the client sees: text, and tool calls with their ids.
 * Without tools the text passes through. With {@code tool_choice} auto the model's format parser
 * reads calls out of the text (special marker tokens fed in as their text). When a call to a named
 * function is forced, the prompt already holds the call up to its arguments, so every token is
 * arguments text, streamed as it comes; when any call is forced ({@code required}), the answer is
 * one call object, read whole at the end. Not thread-safe: one per answer, on its request's thread.
 */
final class ToolAnswer {
    /** A piece of the answer: text, or part of the call at {@code index} (id and name only in its first piece). */
    sealed interface Piece {
    }

    record Text(String text) implements Piece {
    }

    record CallPart(int index, String id, String name, String arguments) implements Piece {
    }

    private enum Mode { TEXT, PARSE, FORCED_NAMED, FORCED_ANY }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Mode mode;
    private final ToolCallFormat format;
    private final ToolCallParser parser;
    private final Map<Integer, String> markers;
    private final String forcedName;
    private final StringBuilder forcedText = new StringBuilder();
    private final StringBuilder content = new StringBuilder();
    private final List<ToolCall> calls = new ArrayList<>();
    private final List<StringBuilder> arguments = new ArrayList<>();
    private boolean started;

    private ToolAnswer(Mode mode, ToolCallFormat format, Map<Integer, String> markers, String forcedName) {
        this.mode = mode;
        this.format = format;
        this.parser = mode == Mode.PARSE ? format.newParser() : null;
        this.markers = markers;
        this.forcedName = forcedName;
    }

    /** Plain text: no tools, or {@code tool_choice} none. */
    static ToolAnswer text() {
        return new ToolAnswer(Mode.TEXT, null, Map.of(), null);
    }

    /**
     * The reader for a request's tools.
     *
     * @param markers the ids of {@code format}'s marker tokens and their text
     */
    static ToolAnswer of(ToolRequest tools, ToolCallFormat format, Map<Integer, String> markers) {
        if (!tools.active()) return text();
        return switch (tools.choice()) {
            case NAMED -> new ToolAnswer(Mode.FORCED_NAMED, format, markers, tools.forced());
            case REQUIRED -> tools.tools().size() == 1 ? new ToolAnswer(Mode.FORCED_NAMED, format, markers, tools.tools().getFirst().name())
                    : new ToolAnswer(Mode.FORCED_ANY, format, markers, null);
            default -> new ToolAnswer(Mode.PARSE, format, markers, null);
        };
    }

    /** The name of the function whose call the prompt opens, or null when none is. */
    String forcedName() {
        return mode == Mode.FORCED_NAMED ? forcedName : null;
    }

    /** Takes a generated token's id and text; returns the pieces that became final. */
    List<Piece> token(int id, String text) {
        List<Piece> out = new ArrayList<>();
        switch (mode) {
            case TEXT -> text(out, text);
            case PARSE -> {
                String marker = markers.get(id);
                read(out, parser.feed(marker == null ? text : marker + text));
            }
            case FORCED_NAMED -> {
                if (!started) out.add(openCall(forcedName, ""));
                started = true;
                if (!text.isEmpty()) {
                    arguments.getLast().append(text);
                    out.add(new CallPart(0, null, null, text));
                }
            }
            case FORCED_ANY -> forcedText.append(text);
        }
        return out;
    }

    /** Ends the answer; returns what was held. */
    List<Piece> finish() {
        List<Piece> out = new ArrayList<>();
        switch (mode) {
            case TEXT -> { }
            case PARSE -> read(out, parser.finish());
            case FORCED_NAMED -> {
                if (!started) out.add(openCall(forcedName, ""));
                started = true;
            }
            case FORCED_ANY -> {
                ToolCallSyntax syntax = format.syntax();
                JsonNode node = tree(forcedText.toString());
                JsonNode name = node == null ? null : node.get(syntax.nameField());
                JsonNode args = node == null ? null : node.get(syntax.argumentsField());
                if (name != null && name.isTextual() && args != null && args.isObject()) {
                    out.add(openCall(name.asText(), args.toString()));
                } else {
                    text(out, forcedText.toString()); // cut short (max_tokens): the client gets what there is
                }
            }
        }
        return out;
    }

    /** Whether the answer holds a call. */
    boolean called() {
        return !arguments.isEmpty();
    }

    /** The calls, once {@link #finish} ran. */
    List<ToolCall> calls() {
        List<ToolCall> out = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            ToolCall c = calls.get(i);
            out.add(new ToolCall(c.id(), c.name(), arguments.get(i).toString()));
        }
        return out;
    }

    /** The answer's text, once {@link #finish} ran. */
    String content() {
        return content.toString();
    }

    private void read(List<Piece> out, List<ToolCallEvent> events) {
        for (ToolCallEvent e : events) {
            switch (e) {
                case ToolCallEvent.Text t -> text(out, t.text());
                case ToolCallEvent.Call c -> out.add(openCall(c.name(), c.arguments()));
            }
        }
    }

    private CallPart openCall(String name, String args) {
        int index = calls.size();
        String id = format.newCallId(ThreadLocalRandom.current());
        calls.add(new ToolCall(id, name, "{}"));
        arguments.add(new StringBuilder(args));
        return new CallPart(index, id, name, args);
    }

    private void text(List<Piece> out, String text) {
        if (text.isEmpty()) return;
        content.append(text);
        out.add(new Text(text));
    }

    private static JsonNode tree(String text) {
        try {
            return JSON.readTree(text);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            return null;
        }
    }
}
