package panamax.models.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import panamax.api.model.Tokenizer;
import panamax.engine.generate.StreamDetokenizer;

/**
 * The engine's streaming detokenizer over the real fixture tokenizers (byte-level BPE for Qwen3,
 * SentencePiece-style byte fallback for Llama 2): streaming every fixture string token by token
 * gives exactly its decoded text, and no delta carries a broken character.
 */
class StreamingDetokenizationTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TestFactory
    Stream<DynamicTest> streamingEveryFixtureStringGivesItsDecodedText() {
        return Fixtures.folders(dir -> dir.getFileName().toString().startsWith("tokenizer-")).stream()
                .map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> check(dir)));
    }

    private static void check(Path dir) throws IOException {
        JsonNode expected = JSON.readTree(dir.resolve("expected.json").toFile());
        int multiTokenCharacters = 0;
        try (Tokenizer tokenizer = TokenizerLoader.load(dir)) {
            for (JsonNode c : expected.path("encodings")) {
                String text = c.path("text").asText();
                int[] ids = tokenizer.encode(text, true);
                StreamDetokenizer stream = new StreamDetokenizer(tokenizer);
                StringBuilder out = new StringBuilder();
                int silent = 0;
                for (int id : ids) {
                    String delta = stream.add(id);
                    assertFalse(delta.contains("\uFFFD"), dir.getFileName() + ": broken character in a delta of " + text);
                    if (delta.isEmpty() && !tokenizer.specialIds().contains(id)) silent++;
                    out.append(delta);
                }
                out.append(stream.flush());
                assertEquals(tokenizer.decode(ids, true), out.toString(), dir.getFileName() + ": " + text);
                if (silent > 0 && !text.isEmpty()) multiTokenCharacters++;
            }
        }
        // The fixtures hold emoji and CJK text whose bytes span tokens: some deltas must have been held back.
        assertTrue(multiTokenCharacters > 0, dir + ": no string exercised a held-back character");
    }
}
