package panamax.server;

import com.fasterxml.jackson.databind.node.TextNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolCallSyntax;

/**
 * The prompt side of tool calls for one served model: checks that the model takes tools, renders
 * the tools through its chat template, and, when a call is forced, opens that call after the
 * generation prompt in the model's own syntax so the answer continues it. Thread-safe.
 */
final class ToolPrompts {
    private final Optional<ToolCallFormat> format;
    private final Tokenizer tokenizer;
    private final String modelId;
    /** Marker tokens of the format that the vocabulary has, by id. */
    private final Map<Integer, String> markers = new HashMap<>();

    ToolPrompts(Optional<ToolCallFormat> format, Tokenizer tokenizer, String modelId) {
        this.format = format;
        this.tokenizer = tokenizer;
        this.modelId = modelId;
        format.ifPresent(f -> {
            for (String marker : f.markerTokens()) {
                Integer id = tokenizer.addedTokens().get(marker);
                if (id != null) markers.put(id, marker);
            }
        });
    }

    /**
     * The reader of an answer to {@code tools}.
     *
     * @throws ApiException 400 naming {@code tools} when tools are active and the model takes none
     */
    ToolAnswer answer(ToolRequest tools) {
        if (!tools.active()) return ToolAnswer.text();
        ToolCallFormat f = format.orElseThrow(() -> ApiException.invalid("tools", "tools: the model '" + modelId
                + "' cannot be given tools: its chat template does not take them (or its plugin declares no tool-call format)"));
        return ToolAnswer.of(tools, f, Map.copyOf(markers));
    }

    /**
     * The conversation through the chat template with the active tools and the generation prompt,
     * followed by the opening of a forced call.
     *
     * @throws IllegalArgumentException when the template rejects the conversation
     */
    String render(List<ChatMessage> messages, ToolRequest tools, ToolAnswer answer) {
        if (!tools.active()) return tokenizer.renderChat(messages, true);
        String rendered = tokenizer.renderChat(messages, tools.tools(), true);
        ToolCallSyntax syntax = format.orElseThrow().syntax();
        if (answer.forcedName() != null) return rendered + namedOpening(syntax, answer.forcedName());
        if (tools.forcing()) return rendered + syntax.opening();
        return rendered;
    }

    /** A call to {@code name} written up to its arguments: {@code <tool_call>\n{"name": "f", "arguments": }. */
    static String namedOpening(ToolCallSyntax syntax, String name) {
        return syntax.opening() + "{" + quote(syntax.nameField()) + ": " + quote(name) + ", " + quote(syntax.argumentsField()) + ": ";
    }

    private static String quote(String text) {
        return new TextNode(text).toString();
    }
}
