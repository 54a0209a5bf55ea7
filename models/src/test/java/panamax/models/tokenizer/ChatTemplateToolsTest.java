package panamax.models.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;
import panamax.api.model.ToolCall;
import panamax.api.model.ToolDefinition;
import panamax.models.family.LlamaPlugin;
import panamax.models.family.Qwen3Plugin;
import panamax.models.template.ChatTemplate;

/**
 * Tools, assistant tool calls and tool results through real chat templates, and the tool-call
 * format each plugin declares for a model directory.
 */
class ChatTemplateToolsTest {
    private static final List<ToolDefinition> TOOLS = List.of(
            new ToolDefinition("get_weather", "The weather in a city, now.",
                    "{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\", \"enum\": [\"Paris\", \"Oslo\"]}, "
                            + "\"unit\": {\"type\": \"string\"}}, \"required\": [\"city\"]}"),
            new ToolDefinition("get_time", null, "{\"type\":\"object\",\"properties\":{}}"));
    private static final List<ChatMessage> CONVERSATION = List.of(
            new ChatMessage("system", "You are terse."),
            new ChatMessage("user", "Weather in Paris? Et l'heure?"),
            ChatMessage.assistantCalls(null, List.of(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\",\"unit\":\"°C\"}"),
                    new ToolCall("call_2", "get_time", "{}"))),
            ChatMessage.toolResult("call_1", "21 °C, sunny"),
            ChatMessage.toolResult("call_2", "12:00"));

    /**
     * What Jinja2 3.1.6 renders from the fixture's Qwen3 template with transformers' settings
     * ({@code trim_blocks}, {@code lstrip_blocks}, {@code tojson} as {@code json.dumps(ensure_ascii=False)}),
     * given the same conversation with arguments and schemas as mappings, as vLLM passes them.
     */
    private static final String QWEN3_EXPECTED = """
                <|im_start|>system
                You are terse.

                # Tools

                You may call one or more functions to assist with the user query.

                You are provided with function signatures within <tools></tools> XML tags:
                <tools>
                {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city, now.", "parameters": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "Oslo"]}, "unit": {"type": "string"}}, "required": ["city"]}}}
                {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
                </tools>

                For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
                <tool_call>
                {"name": <function-name>, "arguments": <args-json-object>}
                </tool_call><|im_end|>
                <|im_start|>user
                Weather in Paris? Et l'heure?<|im_end|>
                <|im_start|>assistant
                <tool_call>
                {"name": "get_weather", "arguments": {"city": "Paris", "unit": "°C"}}
                </tool_call>
                <tool_call>
                {"name": "get_time", "arguments": {}}
                </tool_call><|im_end|>
                <|im_start|>user
                <tool_response>
                21 °C, sunny
                </tool_response>
                <tool_response>
                12:00
                </tool_response><|im_end|>
                <|im_start|>assistant
                """;

    private static Path qwen3() {
        return Fixtures.root().resolve("tokenizer-qwen3");
    }

    @Test
    void theRealQwen3TemplateRendersToolsCallsAndResultsAsJinja2Does() {
        try (Tokenizer tokenizer = new HfTokenizerProvider().load(qwen3())) {
            assertEquals(QWEN3_EXPECTED, tokenizer.renderChat(CONVERSATION, TOOLS, true));
        }
    }

    @Test
    void withoutToolsTheTemplateRendersAsBefore() {
        try (Tokenizer tokenizer = new HfTokenizerProvider().load(qwen3())) {
            List<ChatMessage> plain = List.of(new ChatMessage("user", "Hi"));
            assertEquals(tokenizer.renderChat(plain, true), tokenizer.renderChat(plain, List.of(), true));
            assertEquals("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", tokenizer.renderChat(plain, List.of(), true));
        }
    }

    @Test
    void aTemplateThatReadsNoToolsRefusesThemByName() {
        try (Tokenizer tokenizer = new HfTokenizerProvider().load(Fixtures.root().resolve("qwen3-tiny"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> tokenizer.renderChat(List.of(new ChatMessage("user", "Hi")), TOOLS, true));
            assertTrue(e.getMessage().contains("does not take tools"), e.getMessage());
        }
    }

    /**
     * Llama 3.1's template opens with {@code {%- if not tools is defined %}{%- set tools = none %}} and
     * dates itself when {@code strftime_now is defined}: Jinja2 reads {@code not (tools is defined)},
     * and transformers' functions are defined names. Read otherwise, the tools vanish silently.
     */
    @Test
    void notBindsLooserThanIsAndTransformersFunctionsAreDefinedAsInJinja2() {
        ChatTemplate template = new ChatTemplate("{%- if not tools is defined %}{%- set tools = none %}{%- endif %}"
                + "{%- if tools is not none %}tools: {{ tools | length }}{% endif %}"
                + "{%- if not date is defined %}{%- set date = '26 Jul 2024' %}{%- endif %}"
                + "{%- if strftime_now is defined %} dated{% endif %}{%- if not raise_exception is defined %} undefined{% endif %}", "", "");
        List<ChatMessage> hi = List.of(new ChatMessage("user", "hi"));
        assertEquals("tools: 2 dated", template.render(hi, TOOLS, true));
        assertEquals(" dated", template.render(hi, List.of(), true));
    }

    @Test
    void pluginsDeclareAFormatOnlyWhereTheTemplateTakesTools() {
        assertEquals("hermes", new Qwen3Plugin().toolCallFormat(qwen3()).orElseThrow().id());
        assertTrue(new Qwen3Plugin().toolCallFormat(Fixtures.root().resolve("qwen3-tiny")).isEmpty(), "a ChatML template without tools");
        // a Llama model with a Hermes-style template (a Hermes fine-tune) writes <tool_call> tags, as its template does
        assertEquals("hermes", new LlamaPlugin().toolCallFormat(qwen3()).orElseThrow().id());
    }
}
