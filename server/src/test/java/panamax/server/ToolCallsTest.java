package panamax.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import panamax.engine.serve.ServingConfig;

/**
 * {@code tools} and {@code tool_choice} over raw HTTP against a model whose real Qwen3 template
 * takes tools: forced calls always parse, whole and streamed answers agree, {@code none} leaves the
 * tools out of the prompt, a call and its result go back through the template, and bad tool fields
 * get a 400 naming the field.
 */
class ToolCallsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CHAT = "/v1/chat/completions";
    private static final String WEATHER = "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Current weather in a city\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\",\"enum\":[\"Paris\",\"Oslo\",\"Lima\"]},"
            + "\"celsius\":{\"type\":\"boolean\"}},\"required\":[\"city\",\"celsius\"],\"additionalProperties\":false}}}";
    private static final String TIME = "{\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"description\":\"The time now\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"zone\":{\"type\":\"string\",\"enum\":[\"UTC\",\"CET\"]}},"
            + "\"required\":[\"zone\"],\"additionalProperties\":false}}}";
    private static final String USER = "\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"}]";

    private static QwenToolModel model;
    private static DemoServer server;

    @BeforeAll
    static void start() {
        model = QwenToolModel.create();
        server = DemoServer.serving(ServerOptions.defaults(), ServingConfig.defaults().withMaxBatch(4), model.directory);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (model != null) model.close();
    }

    private static JsonNode ok(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    private static String body(String choice, String extra) {
        return "{" + USER + ",\"tools\":[" + WEATHER + "," + TIME + "],\"tool_choice\":" + choice + ",\"max_tokens\":64,\"seed\":5" + extra + "}";
    }

    private static final String NAMED = "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}";

    private static void assertWeatherArguments(String arguments) throws Exception {
        JsonNode args = JSON.readTree(arguments);
        assertTrue(args.isObject(), arguments);
        assertTrue(List.of("Paris", "Oslo", "Lima").contains(args.path("city").asText()), "city from the enum: " + arguments);
        assertTrue(args.path("celsius").isBoolean(), "celsius a boolean: " + arguments);
    }

    @Test
    void aNamedToolChoiceAlwaysGivesAParsedCallToThatFunction() throws Exception {
        for (int seed = 1; seed <= 3; seed++) {
            JsonNode answer = ok(server.post(CHAT, body(NAMED, ",\"seed\":" + seed + ",\"temperature\":1.0")));
            JsonNode choice = answer.get("choices").get(0);
            assertEquals("tool_calls", choice.get("finish_reason").asText(), answer.toString());
            JsonNode message = choice.get("message");
            assertTrue(message.get("content").isNull(), "no text beside a forced call: " + message);
            JsonNode call = message.get("tool_calls").get(0);
            assertEquals(1, message.get("tool_calls").size());
            assertEquals("function", call.get("type").asText());
            assertTrue(call.get("id").asText().matches("call_[A-Za-z0-9]{24}"), call.toString());
            assertEquals("get_weather", call.get("function").get("name").asText());
            assertWeatherArguments(call.get("function").get("arguments").asText());
        }
    }

    @Test
    void requiredGivesAParsedCallToOneOfTheTools() throws Exception {
        for (int seed = 1; seed <= 3; seed++) {
            JsonNode answer = ok(server.post(CHAT, body("\"required\"", ",\"seed\":" + seed + ",\"temperature\":1.0")));
            JsonNode choice = answer.get("choices").get(0);
            assertEquals("tool_calls", choice.get("finish_reason").asText(), answer.toString());
            JsonNode call = choice.get("message").get("tool_calls").get(0).get("function");
            JsonNode args = JSON.readTree(call.get("arguments").asText());
            switch (call.get("name").asText()) {
                case "get_weather" -> assertWeatherArguments(call.get("arguments").asText());
                case "get_time" -> assertTrue(List.of("UTC", "CET").contains(args.path("zone").asText()), args.toString());
                default -> throw new AssertionError("not one of the tools: " + call);
            }
        }
    }

    @Test
    void aStreamedForcedCallComesAsToolCallDeltasThatAddUpToTheWholeAnswer() throws Exception {
        for (String choice : List.of(NAMED, "\"required\"")) {
            JsonNode whole = ok(server.post(CHAT, body(choice, ""))).get("choices").get(0).get("message").get("tool_calls").get(0);
            HttpResponse<String> r = server.post(CHAT, body(choice, ",\"stream\":true"));
            assertEquals(200, r.statusCode(), r.body());
            String id = null, name = null;
            StringBuilder arguments = new StringBuilder();
            List<String> finishes = new ArrayList<>();
            int callChunks = 0;
            for (String line : r.body().split("\n")) {
                if (!line.startsWith("data: {")) continue;
                JsonNode c = JSON.readTree(line.substring(6)).get("choices").get(0);
                if (!c.get("finish_reason").isNull()) finishes.add(c.get("finish_reason").asText());
                JsonNode calls = c.get("delta").get("tool_calls");
                if (calls == null) continue;
                callChunks++;
                assertEquals(0, calls.get(0).get("index").asInt(), line);
                if (calls.get(0).has("id")) {
                    assertEquals(null, id, "one first piece per call: " + line);
                    id = calls.get(0).get("id").asText();
                    name = calls.get(0).get("function").get("name").asText();
                }
                arguments.append(calls.get(0).get("function").get("arguments").asText());
            }
            assertEquals(List.of("tool_calls"), finishes, r.body());
            assertNotNull(id, r.body());
            assertEquals(whole.get("function").get("name").asText(), name, "same seed, same call");
            assertEquals(whole.get("function").get("arguments").asText(), arguments.toString(), "same seed, same arguments");
            if (choice.equals(NAMED)) assertTrue(callChunks > 2, "a named call's arguments stream token by token: " + callChunks);
        }
    }

    @Test
    void toolChoiceNoneLeavesTheToolsOutOfThePromptAndAutoPutsThemIn() throws Exception {
        int plain = ok(server.post(CHAT, "{" + USER + ",\"max_tokens\":1}")).get("usage").get("prompt_tokens").asInt();
        int none = ok(server.post(CHAT, body("\"none\"", ""))).get("usage").get("prompt_tokens").asInt();
        JsonNode auto = ok(server.post(CHAT, body("\"auto\"", "")));
        assertEquals(plain, none, "tool_choice none renders no tools");
        assertTrue(auto.get("usage").get("prompt_tokens").asInt() > plain + 100, "the tools' descriptions reach the prompt: " + auto);
        JsonNode defaultChoice = ok(server.post(CHAT, "{" + USER + ",\"tools\":[" + WEATHER + "],\"max_tokens\":4}"));
        assertTrue(defaultChoice.get("usage").get("prompt_tokens").asInt() > plain + 50, "auto is the default with tools");
    }

    @Test
    void aCallAndItsResultGoBackThroughTheTemplateForTheNextAnswer() throws Exception {
        JsonNode first = ok(server.post(CHAT, body(NAMED, "")));
        JsonNode assistant = first.get("choices").get(0).get("message");
        JsonNode call = assistant.get("tool_calls").get(0);
        ObjectNode next = (ObjectNode) JSON.readTree("{" + USER + ",\"tools\":[" + WEATHER + "," + TIME + "],\"max_tokens\":8,\"seed\":3}");
        ArrayNode messages = (ArrayNode) next.get("messages");
        messages.add(assistant);
        messages.addObject().put("role", "tool").put("tool_call_id", call.get("id").asText()).put("content", "{\"temperature\": 21}");
        JsonNode second = ok(server.post(CHAT, JSON.writeValueAsString(next)));
        int firstPrompt = first.get("usage").get("prompt_tokens").asInt();
        int secondPrompt = second.get("usage").get("prompt_tokens").asInt();
        assertTrue(secondPrompt > firstPrompt, "the call and the tool's answer were rendered: " + firstPrompt + " -> " + secondPrompt);
        assertTrue(second.get("usage").get("prompt_tokens_details").get("cached_tokens").asInt() > 0,
                "the second prompt extends the first, so its prefix is reused: " + second);
        assertFalse(second.get("choices").get(0).get("finish_reason").isNull());
    }

    static Stream<Arguments> badToolBodies() {
        String tools = "\"tools\":[" + WEATHER + "]";
        return Stream.of(
                Arguments.of("tools not an array", "{" + USER + ",\"tools\":{}}", "tools"),
                Arguments.of("a tool of another type", "{" + USER + ",\"tools\":[{\"type\":\"retrieval\"}]}", "tools[0].type"),
                Arguments.of("a tool without function", "{" + USER + ",\"tools\":[{\"type\":\"function\"}]}", "tools[0].function"),
                Arguments.of("a function name with spaces", "{" + USER + ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get weather\"}}]}",
                        "tools[0].function.name"),
                Arguments.of("parameters not an object", "{" + USER + ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":[]}}]}",
                        "tools[0].function.parameters"),
                Arguments.of("an unknown function field", "{" + USER + ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"returns\":{}}}]}",
                        "tools[0].function.returns"),
                Arguments.of("a name given twice", "{" + USER + ",\"tools\":[" + WEATHER + "," + WEATHER + "]}", "tools[1].function.name"),
                Arguments.of("an unknown tool_choice", "{" + USER + "," + tools + ",\"tool_choice\":\"always\"}", "tool_choice"),
                Arguments.of("tool_choice a number", "{" + USER + "," + tools + ",\"tool_choice\":1}", "tool_choice"),
                Arguments.of("required without tools", "{" + USER + ",\"tool_choice\":\"required\"}", "tool_choice"),
                Arguments.of("a named choice not among the tools", "{" + USER + "," + tools
                        + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}}", "tool_choice.function.name"),
                Arguments.of("a named choice without name", "{" + USER + "," + tools + ",\"tool_choice\":{\"type\":\"function\",\"function\":{}}}",
                        "tool_choice.function.name"),
                Arguments.of("a tool message without tool_call_id", "{\"messages\":[{\"role\":\"tool\",\"content\":\"21\"}]}", "messages[0].tool_call_id"),
                Arguments.of("call arguments as an object", "{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
                        + "\"function\":{\"name\":\"f\",\"arguments\":{}}}]}]}", "messages[0].tool_calls[0].function.arguments"),
                Arguments.of("a call without id", "{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"type\":\"function\","
                        + "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}]}", "messages[0].tool_calls[0].id"),
                Arguments.of("tool_calls on a user message", "{\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"tool_calls\":[]}]}",
                        "messages[0].tool_calls"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badToolBodies")
    void aBadToolFieldGets400NamingIt(String what, String body, String param) throws Exception {
        HttpResponse<String> r = server.post(CHAT, body);
        assertEquals(400, r.statusCode(), r.body());
        JsonNode error = JSON.readTree(r.body()).get("error");
        assertEquals(param, error.get("param").asText(), r.body());
        assertEquals("invalid_request_error", error.get("type").asText());
        assertFalse(error.get("message").asText().isBlank());
    }
}
