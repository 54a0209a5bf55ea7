package panamax.api.model;

import java.util.List;

/**
 * Reads tool calls out of one answer's text as it streams: text that cannot begin a call is
 * passed on at once, text that may is held until the call completes or turns out not to be one.
 * Output that never forms a valid call comes back as text; a parser never throws on model output.
 * One instance per answer; not thread-safe.
 *
 * {@snippet :
 * ToolCallParser parser = format.newParser();
 * for (String delta : deltas) events.addAll(parser.feed(delta));
 * events.addAll(parser.finish());
 * }
 *
 * @since 0.3
 */
public interface ToolCallParser {
    /** Takes the next piece of generated text; returns the text and calls that became final, in order. */
    List<ToolCallEvent> feed(String text);

    /** Ends the answer: returns what was held, a call left unfinished as text. */
    List<ToolCallEvent> finish();
}
