package panamax.server;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolCallSyntax;
import panamax.api.model.ToolDefinition;
import panamax.engine.structured.Constraints;
import panamax.engine.structured.Grammar;
import panamax.engine.structured.JsonSchemaGrammar;
import panamax.engine.structured.UnsupportedSchemaException;

/**
 * The prompt side of tool calls for one served model: checks that the model takes tools, renders
 * the tools through its chat template, and, when a call is forced, opens that call after the
 * generation prompt in the model's own syntax so the answer continues it. Thread-safe.
 */
final class ToolPrompts {
    private static final ObjectMapper JSON = new ObjectMapper();
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

    /**
     * The grammar a forced call's answer follows, or null when no call is forced: the arguments of
     * the named function (the prompt holds the call up to them), or one call object naming any of
     * the tools with its arguments (the prompt holds the opening). Compiled grammars are cached by
     * their text, so a client that sends the same tools each time compiles them once.
     *
     * @throws ApiException 400 naming {@code tools[i].function.parameters} when a schema uses a keyword outside the supported subset
     */
    Grammar grammar(ToolRequest tools, ToolAnswer answer) {
        if (!tools.active() || !tools.forcing()) return null;
        if (answer.forcedName() != null) {
            int i = tools.tools().indexOf(tools.tool(answer.forcedName()));
            return schemaGrammar(i, tools.tools().get(i), () -> Constraints.jsonSchema(parameters(tools.tools().get(i))));
        }
        ToolCallSyntax syntax = format.orElseThrow().syntax();
        StringBuilder gbnf = new StringBuilder();
        StringBuilder calls = new StringBuilder();
        for (int i = 0; i < tools.tools().size(); i++) {
            ToolDefinition tool = tools.tools().get(i);
            int at = i;
            String arguments = schemaGrammar(i, tool, () -> JsonSchemaGrammar.gbnf(parameters(tool), "t" + at + "-"));
            gbnf.append(arguments);
            gbnf.append("t").append(i).append("-call ::= ").append(literal(quote(tool.name()))).append(" call-ws \",\" call-ws ")
                    .append(literal(quote(syntax.argumentsField()))).append(" call-ws \":\" call-ws t").append(i).append("-root\n");
            calls.append(i == 0 ? "" : " | ").append("t").append(i).append("-call");
        }
        gbnf.append("root ::= \"{\" call-ws ").append(literal(quote(syntax.nameField()))).append(" call-ws \":\" call-ws (")
                .append(calls).append(") call-ws \"}\"\n");
        gbnf.append("call-ws ::= \" \"?\n");
        return Constraints.gbnf(gbnf.toString());
    }

    /** A tool's parameter schema; a function without one takes an empty object. */
    private static JsonNode parameters(ToolDefinition tool) {
        try {
            return JSON.readTree(tool.parameters() == null ? "{\"type\": \"object\", \"properties\": {}}" : tool.parameters());
        } catch (JacksonException e) {
            throw new IllegalStateException("a tool's parameters were checked to be a JSON object", e);
        }
    }

    /** {@code compile}'s result, an unsupported schema keyword turned into a 400 naming the tool's parameters. */
    private static <T> T schemaGrammar(int index, ToolDefinition tool, java.util.function.Supplier<T> compile) {
        try {
            return compile.get();
        } catch (UnsupportedSchemaException e) {
            String at = "tools[" + index + "].function.parameters";
            throw ApiException.invalid(at, at + ": a forced call to '" + tool.name() + "' needs a schema the output grammar supports: " + e.getMessage());
        }
    }

    /** A GBNF string literal matching exactly {@code text}. */
    private static String literal(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** A call to {@code name} written up to its arguments: {@code <tool_call>\n{"name": "f", "arguments": }. */
    static String namedOpening(ToolCallSyntax syntax, String name) {
        return syntax.opening() + "{" + quote(syntax.nameField()) + ": " + quote(name) + ", " + quote(syntax.argumentsField()) + ": ";
    }

    private static String quote(String text) {
        return new TextNode(text).toString();
    }
}
