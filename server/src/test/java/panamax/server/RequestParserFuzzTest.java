package panamax.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestParser} under arbitrary bytes: a body either parses into parameters within their
 * documented ranges or is refused with an {@link ApiException} of status 400; anything else
 * fails. Regression inputs live under
 * {@code src/test/resources/panamax/server/RequestParserFuzzTestInputs/}; those named
 * {@code valid-*} must parse and those named {@code invalid-*} must be refused.
 */
class RequestParserFuzzTest {
    private static final RequestParser PARSER = new RequestParser();
    private static final String INPUTS = "RequestParserFuzzTestInputs/";

    @FuzzTest(maxDuration = "30s")
    void chatBodiesParseOrFailWith400(byte[] body) {
        outcome(body, PARSER::chat);
    }

    @FuzzTest(maxDuration = "30s")
    void completionBodiesParseOrFailWith400(byte[] body) {
        outcome(body, PARSER::completion);
    }

    /** The parameters, or null when refused with 400; throws for any other outcome. */
    private static CompletionParams outcome(byte[] body, Function<byte[], CompletionParams> parse) {
        CompletionParams p;
        try {
            p = parse.apply(body);
        } catch (ApiException e) {
            if (e.status() != 400) throw new AssertionError("status " + e.status() + " for a body: " + e.getMessage(), e);
            if (e.getMessage() == null || e.getMessage().isBlank()) throw new AssertionError("a refusal without a message", e);
            return null;
        }
        check(p);
        return p;
    }

    private static void check(CompletionParams p) {
        boolean ok = (p.chat() ? !p.messages().isEmpty() && p.prompt() == null && p.promptIds() == null
                : p.messages().isEmpty() && (p.prompt() == null) != (p.promptIds() == null))
                && p.maxTokens().orElse(1) >= 1
                && p.temperature() >= 0 && p.temperature() <= 2
                && p.topP() > 0 && p.topP() <= 1
                && p.topK() >= 0
                && p.minP() >= 0 && p.minP() <= 1
                && p.repetitionPenalty() > 0 && p.repetitionPenalty() <= 10
                && p.stop().size() <= RequestParser.MAX_STOPS
                && p.stop().stream().allMatch(s -> !s.isEmpty() && s.length() <= RequestParser.MAX_STOP_LENGTH)
                && p.topLogprobs() >= -1 && p.topLogprobs() <= 20
                && (!p.includeUsage() || p.stream())
                && (p.promptIds() == null || (p.promptIds().length > 0 && java.util.Arrays.stream(p.promptIds()).allMatch(i -> i >= 0)))
                && (p.prompt() == null || !p.prompt().isEmpty())
                && (p.tools().forced() == null || p.tools().tools().stream().anyMatch(t -> t.name().equals(p.tools().forced())))
                && (p.chat() || p.tools() == ToolRequest.ABSENT);
        if (!ok) throw new AssertionError("parsed into parameters out of range: " + p);
    }

    private static List<Path> seeds(String method, String prefix) throws IOException, URISyntaxException {
        URL dir = RequestParserFuzzTest.class.getResource(INPUTS + method);
        if (dir == null) throw new AssertionError("no seed directory " + INPUTS + method + " on the class path");
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)).sorted().toList();
        }
    }

    private static void assertSeeds(String method, Function<byte[], CompletionParams> parse) throws Exception {
        List<Path> valid = seeds(method, "valid-"), invalid = seeds(method, "invalid-");
        assertTrue(valid.size() >= 3, "valid seeds: " + valid);
        assertTrue(invalid.size() >= 3, "invalid seeds: " + invalid);
        for (Path f : valid) {
            CompletionParams p = outcome(Files.readAllBytes(f), parse);
            assertTrue(p != null, f.getFileName() + " is valid and must parse");
        }
        for (Path f : invalid) {
            ApiException e = assertThrows(ApiException.class, () -> parse.apply(Files.readAllBytes(f)), f.getFileName().toString());
            assertEquals(400, e.status(), f.getFileName() + ": " + e.getMessage());
        }
    }

    @Test
    void theValidChatSeedsParseAndTheInvalidOnesAreRefused() throws Exception {
        assertSeeds("chatBodiesParseOrFailWith400", PARSER::chat);
    }

    @Test
    void theValidCompletionSeedsParseAndTheInvalidOnesAreRefused() throws Exception {
        assertSeeds("completionBodiesParseOrFailWith400", PARSER::completion);
    }

    @Test
    void theRichestChatSeedKeepsEveryValue() throws IOException {
        byte[] body;
        try (InputStream in = RequestParserFuzzTest.class.getResourceAsStream(INPUTS + "chatBodiesParseOrFailWith400/valid-everything.json")) {
            body = in.readAllBytes();
        }
        CompletionParams p = PARSER.chat(body);
        assertEquals("m1", p.model());
        assertEquals(4, p.messages().size());
        assertEquals("system", p.messages().get(3).role(), "developer is read as system");
        assertEquals(16, p.maxTokens().getAsInt());
        assertEquals(0.8, p.temperature());
        assertEquals(0.9, p.topP());
        assertEquals(0, p.topK());
        assertEquals(42L, p.seed().getAsLong());
        assertEquals(List.of("\n\n", "END"), p.stop());
        assertTrue(p.stream() && p.includeUsage());
        assertEquals(5, p.topLogprobs());
    }
}
