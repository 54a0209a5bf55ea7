package panamax.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import panamax.engine.serve.ServingConfig;

/**
 * {@code response_format} over HTTP on the demo model: json_schema and json_object answers parse and
 * validate (networknt), on both endpoints, streamed and not, while unconstrained requests share the
 * same continuous batch; a schema outside the subset is a 400 that names the keyword.
 */
class StructuredOutputsTest {
    private static final String CHAT = "/v1/chat/completions";
    /** Decimals parsed exactly: a generated number may lie past a double's range, which a double reads as infinite. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final String SCHEMA = """
            {"type":"object","properties":{"captain":{"type":"string","maxLength":20},"ship":{"enum":["Pequod","Rachel"]},
             "crew":{"type":"integer"},"whales":{"type":"array","items":{"$ref":"#/$defs/whale"},"maxItems":2},
             "sunk":{"anyOf":[{"type":"boolean"},{"type":"null"}]}},
             "required":["captain","ship","crew","whales","sunk"],"additionalProperties":false,
             "$defs":{"whale":{"type":"object","properties":{"name":{"type":"string","maxLength":12},"length":{"type":"number"}},
             "required":["name","length"],"additionalProperties":false}}}""";
    private static DemoServer demo;

    @BeforeAll
    static void start() {
        demo = DemoServer.serving(ServerOptions.defaults(), ServingConfig.defaults().withMaxBatch(6));
    }

    @AfterAll
    static void stop() {
        if (demo != null) demo.close();
    }

    private static String format(boolean schema) {
        return schema ? "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"voyage\",\"strict\":true,\"schema\":" + SCHEMA + "}}"
                : "{\"type\":\"json_object\"}";
    }

    private static CompletableFuture<HttpResponse<String>> send(String path, String body) {
        return demo.http.sendAsync(demo.request(path).POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void constrainedAndFreeRequestsShareTheBatchAndConstrainedAnswersValidate() throws Exception {
        var validator = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(JSON.readTree(SCHEMA));
        List<CompletableFuture<HttpResponse<String>>> constrained = new ArrayList<>();
        List<Boolean> withSchema = new ArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> free = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            boolean schema = i % 2 == 0;
            withSchema.add(schema);
            String sampling = i < 2 ? "\"temperature\":0" : "\"temperature\":0.9,\"top_p\":0.95,\"seed\":" + i;
            constrained.add(i % 2 == 0 || i == 1
                    ? send(CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\"Call me Ishmael.\"}],\"max_tokens\":900," + sampling
                    + ",\"response_format\":" + format(schema) + "}")
                    : send("/v1/completions", "{\"prompt\":\"The whale\",\"max_tokens\":900," + sampling + ",\"response_format\":" + format(schema) + "}"));
            free.add(send(CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\"Call me Ishmael.\"}],\"max_tokens\":30,\"ignore_eos\":true}"));
        }
        int checked = 0;
        for (int i = 0; i < constrained.size(); i++) {
            HttpResponse<String> r = constrained.get(i).get();
            assertEquals(200, r.statusCode(), r.body());
            JsonNode choice = JSON.readTree(r.body()).get("choices").get(0);
            String text = choice.has("message") ? choice.get("message").get("content").asText() : choice.get("text").asText();
            if (!withSchema.get(i) && choice.get("finish_reason").asText().equals("length")) continue; // json_object strings are unbounded
            // every string, number, array and run of whitespace in SCHEMA is bounded, so its answers must end
            assertEquals("stop", choice.get("finish_reason").asText(), "a constrained answer ends when its JSON closes: " + r.body());
            JsonNode answer = JSON.readTree(text);
            assertTrue(answer.isObject(), text);
            if (withSchema.get(i)) {
                Set<ValidationMessage> errors = validator.validate(answer);
                assertTrue(errors.isEmpty(), errors + " in " + text);
            }
            checked++;
        }
        for (CompletableFuture<HttpResponse<String>> f : free) {
            HttpResponse<String> r = f.get();
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(30, JSON.readTree(r.body()).get("usage").get("completion_tokens").asInt(), r.body());
        }
        assertTrue(checked >= 2, checked + " answers checked");
    }

    @Test
    void aStreamedJsonSchemaAnswerConcatenatesToValidJson() throws Exception {
        HttpResponse<String> r = send(CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\"Ahab\"}],\"max_tokens\":900,\"stream\":true,"
                + "\"response_format\":" + format(true) + "}").get();
        assertEquals(200, r.statusCode(), r.body());
        StringBuilder text = new StringBuilder();
        for (String line : r.body().split("\n")) {
            if (!line.startsWith("data: ") || line.equals("data: [DONE]")) continue;
            JsonNode delta = JSON.readTree(line.substring(6)).get("choices").get(0).path("delta").path("content");
            if (delta.isTextual()) text.append(delta.asText());
        }
        var validator = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(JSON.readTree(SCHEMA));
        Set<ValidationMessage> errors = validator.validate(JSON.readTree(text.toString()));
        assertTrue(errors.isEmpty(), errors + " in " + text);
    }

    @Test
    void unsupportedKeywordsAreRefusedWith400NamingThem() throws Exception {
        for (String keyword : List.of("pattern", "minimum", "oneOf", "format")) {
            String schema = switch (keyword) {
                case "pattern" -> "{\"type\":\"string\",\"pattern\":\"^a\"}";
                case "minimum" -> "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":3}},\"required\":[\"n\"]}";
                case "oneOf" -> "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}";
                default -> "{\"type\":\"string\",\"format\":\"date\"}";
            };
            HttpResponse<String> r = send("/v1/completions", "{\"prompt\":\"a\",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":"
                    + "{\"name\":\"x\",\"schema\":" + schema + "}}}").get();
            assertEquals(400, r.statusCode(), r.body());
            JsonNode error = JSON.readTree(r.body()).get("error");
            assertEquals("response_format.json_schema.schema", error.get("param").asText(), r.body());
            assertTrue(error.get("message").asText().contains("'" + keyword + "'"), r.body());
        }
    }
}
