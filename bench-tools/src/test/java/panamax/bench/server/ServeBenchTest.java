package panamax.bench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * {@code panamax bench serve} end to end on the demo model: the tool found as a JDK tool, the
 * server started in-process, real streaming clients. Checks what each JSON line reports and how
 * the lines relate (medians of the alternating runs, ratios to the 1-client level); no timing is
 * asserted.
 */
class ServeBenchTest {
    private static ToolProvider tool() {
        return ToolProvider.findFirst("panamax-bench-serve").orElseThrow(() -> new AssertionError("panamax-bench-serve is not installed"));
    }

    @Test
    void printsTheOverheadMediansEveryLevelWithItsRatioToOneClientAndTheLoad() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--clients", "1,3", "--prompt-tokens", "8", "--max-tokens", "4", "--requests-per-client", "2", "--max-batch", "2",
                "--rounds", "3", "--warmup", "1", "--json");
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).lines().toList()) lines.add(mapper.readTree(line));
        assertEquals(List.of("overhead", "serve", "serve", "load"), lines.stream().map(l -> l.get("mode").asText()).toList(), lines.toString());

        JsonNode overhead = lines.get(0);
        assertEquals(3, overhead.get("rounds").asInt());
        for (String side : List.of("generate", "http")) {
            JsonNode runs = overhead.get(side + "_runs");
            assertEquals(3, runs.size(), overhead.toString());
            List<Double> sorted = new ArrayList<>();
            runs.forEach(r -> sorted.add(r.asDouble()));
            sorted.sort(null);
            assertTrue(sorted.getFirst() > 0, overhead.toString());
            String median = side.equals("generate") ? "generate_tok_s" : "http_1_client_tok_s";
            assertEquals(sorted.get(1), overhead.get(median).asDouble(), 0.051, "the median of 3 runs: " + overhead);
        }
        assertEquals(overhead.get("http_1_client_tok_s").asDouble() / overhead.get("generate_tok_s").asDouble(),
                overhead.get("ratio").asDouble(), 0.02, overhead.toString());

        JsonNode one = lines.get(1), three = lines.get(2);
        assertEquals(1, one.get("clients").asInt());
        assertEquals(2, one.get("requests").asInt());
        assertEquals(3, three.get("clients").asInt());
        assertEquals(6, three.get("requests").asInt());
        for (JsonNode level : List.of(one, three)) {
            for (String field : List.of("tok_s", "ttft_p50_ms", "ttft_p99_ms")) assertTrue(level.get(field).asDouble() > 0, field + " in " + level);
            // two events can arrive in one read: a gap of 0.0 ms
            for (String field : List.of("itl_p50_ms", "itl_p99_ms")) assertTrue(level.get(field).asDouble() >= 0, field + " in " + level);
            assertTrue(level.get("ttft_p99_ms").asDouble() >= level.get("ttft_p50_ms").asDouble(), level.toString());
            assertTrue(level.get("scheduler_busy").asDouble() > 0, level.toString());
            double prefill = level.get("prefill_share").asDouble();
            assertTrue(prefill > 0 && prefill < 1, "every request was prefilled and decoded: " + level);
        }
        assertEquals(1.0, one.get("tok_s_vs_1_client").asDouble());
        assertRatio(three, "tok_s", one, "tok_s_vs_1_client");
        assertRatio(three, "ttft_p99_ms", one, "ttft_p99_vs_1_client");
        assertTrue(lines.get(3).has("before") && lines.get(3).has("after"), lines.get(3).toString());
    }

    /**
     * The level's printed ratio equals its printed figure over the 1-client one, within what printing both figures to a
     * tenth (±0.05 each) and the ratio to a hundredth can move it: a TTFT of 10 ms printed as 10.8 moves a ratio of 5 by 0.025.
     */
    private static void assertRatio(JsonNode level, String field, JsonNode one, String ratioField) {
        double a = level.get(field).asDouble(), b = one.get(field).asDouble();
        double ratio = a / b;
        double tolerance = 0.006 + ratio * (0.05 / a + 0.05 / b);
        assertEquals(ratio, level.get(ratioField).asDouble(), tolerance, level.toString());
    }

    @Test
    void aChunkCountsAsATokenOnlyWhenItsTextIsNotEmpty() {
        assertTrue(ServeBench.hasText("data: {\"id\":\"cmpl-1\",\"choices\":[{\"index\":0,\"text\":\"whale\",\"finish_reason\":null}],\"usage\":null}"));
        assertTrue(ServeBench.hasText("data: {\"choices\":[{\"text\":\"\\\"\"}]}"), "an escaped quote is text");
        assertFalse(ServeBench.hasText("data: {\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"length\"}]}"));
        assertFalse(ServeBench.hasText("data: {\"choices\":[],\"usage\":{\"completion_tokens\":4}}"));
        assertFalse(ServeBench.hasText("data: {\"choices\":[{\"text\":\""), "a line cut after the key");
    }

    @Test
    void levelsWithoutAOneClientLevelReportNoRatios() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        // with a new connection per request, as before connections were kept alive
        int exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--clients", "2", "--prompt-tokens", "8", "--max-tokens", "3", "--requests-per-client", "1", "--rounds", "1", "--warmup", "0",
                "--reconnect", "--json");
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        JsonNode level = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8).lines().toList().get(1));
        assertEquals(2, level.get("clients").asInt());
        assertFalse(level.has("tok_s_vs_1_client"), level.toString());
    }

    @Test
    void badArgumentsNameTheFlag() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--rounds", "0");
        assertEquals(2, exit);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("at least 1"), err.toString(StandardCharsets.UTF_8));
        err.reset();
        exit = tool().run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--warmup", "many");
        assertEquals(2, exit);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--warmup"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aLevelWithNothingToTimePrintsADashNotANumber() {
        assertEquals("-", ServeBench.millis(Double.NaN), "no request of the level streamed any text");
        assertEquals("12.3ms", ServeBench.millis(0.0123));
        assertEquals("-", ServeBench.times(Double.NaN));
        assertEquals("-", ServeBench.times(Double.POSITIVE_INFINITY));
        assertEquals("1.66x", ServeBench.times(28.3 / 17.05));
    }
}
