package panamax.models.template;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import panamax.api.model.ChatMessage;
import panamax.api.model.ToolCall;
import panamax.api.model.ToolDefinition;

/**
 * Chat messages and tools as the plain mappings and lists a Jinja template reads, shaped like the
 * OpenAI request fields Hugging Face templates expect. JSON given as text (call arguments, parameter
 * schemas) becomes mappings in its original key order, since templates write it with
 * {@code tojson} or walk its properties.
 */
final class TemplateValues {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {
    };
    /** {@code tools} as a variable name: not {@code tools_in_user_message} or {@code builtin_tools}. */
    private static final Pattern TOOLS_VARIABLE = Pattern.compile("(?<![A-Za-z0-9_.])tools(?![A-Za-z0-9_])");

    private TemplateValues() {
    }

    static Map<String, Object> message(ChatMessage m) {
        Map<String, Object> turn = new LinkedHashMap<>();
        turn.put("role", m.role());
        turn.put("content", m.content());
        if (!m.toolCalls().isEmpty()) {
            List<Map<String, Object>> calls = new ArrayList<>();
            for (ToolCall c : m.toolCalls()) {
                Map<String, Object> function = new LinkedHashMap<>();
                function.put("name", c.name());
                function.put("arguments", jsonObjectOrText(c.arguments()));
                Map<String, Object> call = new LinkedHashMap<>();
                call.put("id", c.id());
                call.put("type", "function");
                call.put("function", function);
                calls.add(call);
            }
            turn.put("tool_calls", calls);
        }
        if (m.toolCallId() != null) turn.put("tool_call_id", m.toolCallId());
        return turn;
    }

    static Map<String, Object> tool(ToolDefinition t) {
        Map<String, Object> function = new LinkedHashMap<>();
        function.put("name", t.name());
        if (t.description() != null) function.put("description", t.description());
        if (t.parameters() != null) function.put("parameters", jsonObjectOrText(t.parameters()));
        Map<String, Object> tool = new LinkedHashMap<>();
        tool.put("type", "function");
        tool.put("function", function);
        return tool;
    }

    /** Whether a template's source reads a variable named {@code tools}. */
    static boolean readsTools(String source) {
        return TOOLS_VARIABLE.matcher(source).find();
    }

    /** A JSON object as a mapping; anything else (invalid JSON, not an object) stays the text it was. */
    private static Object jsonObjectOrText(String json) {
        try {
            return JSON.readValue(json, MAP);
        } catch (JacksonException | IllegalArgumentException e) {
            return json;
        }
    }
}
