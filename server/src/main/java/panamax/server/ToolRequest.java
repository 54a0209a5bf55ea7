package panamax.server;

import java.util.List;
import java.util.Objects;
import panamax.api.model.ToolDefinition;

/**
 * A chat request's {@code tools} and {@code tool_choice}.
 *
 * @param tools  the functions the model may call, names unique (empty: none given)
 * @param choice how the model may call them
 * @param forced for {@link Choice#NAMED}, the function it must call; null otherwise
 */
record ToolRequest(List<ToolDefinition> tools, Choice choice, String forced) {
    /** OpenAI's {@code tool_choice} values. */
    enum Choice {
        /** The model decides whether to call (the default with tools). */
        AUTO,
        /** No call: the template gets no tools and the answer is text. */
        NONE,
        /** The answer is a call to one of the tools. */
        REQUIRED,
        /** The answer is a call to {@link #forced()}. */
        NAMED
    }

    /** No tools given. */
    static final ToolRequest ABSENT = new ToolRequest(List.of(), Choice.NONE, null);

    ToolRequest {
        tools = List.copyOf(tools);
        Objects.requireNonNull(choice, "choice");
        if ((choice == Choice.NAMED) != (forced != null)) throw new IllegalArgumentException("a forced name goes with NAMED only");
    }

    /** Whether the template gets the tools and the answer is read for calls. */
    boolean active() {
        return !tools.isEmpty() && choice != Choice.NONE;
    }

    /** Whether the answer must be a call. */
    boolean forcing() {
        return choice == Choice.REQUIRED || choice == Choice.NAMED;
    }

    /** The tool named {@code name}. */
    ToolDefinition tool(String name) {
        return tools.stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no tool " + name));
    }
}
