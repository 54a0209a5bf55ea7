package panamax.models.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;

/**
 * Every {@code tokenizer-*} fixture folder: ids without and with special tokens, decoded text, and
 * (where present) chat conversations rendered by the config's template and their ids, all equal to
 * what the Hugging Face libraries produced. New folders are checked without code changes.
 */
class TokenizerFixturesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void thereAreTokenizerFixturesToCheck() {
        assertFalse(Fixtures.folders(TokenizerFixturesTest::isTokenizerFixture).isEmpty(),
                "no tokenizer-* folder under " + Fixtures.root());
    }

    @TestFactory
    Stream<DynamicTest> everyTokenizerFixtureIsReproducedExactly() {
        return Fixtures.folders(TokenizerFixturesTest::isTokenizerFixture).stream()
                .map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> check(dir)));
    }

    private static boolean isTokenizerFixture(Path dir) {
        return dir.getFileName().toString().startsWith("tokenizer-");
    }

    private static void check(Path dir) throws IOException {
        JsonNode expected = JSON.readTree(dir.resolve("expected.json").toFile());
        List<String> failures = new ArrayList<>();
        try (Tokenizer tokenizer = TokenizerLoader.load(dir)) {
            for (JsonNode c : expected.path("encodings")) {
                String text = c.path("text").asText();
                int[] ids = tokenizer.encode(text, false);
                int[] withSpecial = tokenizer.encode(text, true);
                if (!java.util.Arrays.equals(ints(c.path("ids")), ids)) failures.add("ids of " + text);
                if (!java.util.Arrays.equals(ints(c.path("ids_with_special")), withSpecial)) failures.add("special ids of " + text);
                String decoded = tokenizer.decode(ints(c.path("ids")), false);
                if (!c.path("decoded").asText().equals(decoded)) failures.add("decoded " + text + " -> " + decoded);
            }
            int chats = 0;
            for (JsonNode chat : expected.path("chat")) {
                List<ChatMessage> messages = new ArrayList<>();
                chat.path("messages").forEach(m -> messages.add(new ChatMessage(m.path("role").asText(), m.path("content").asText())));
                String rendered = tokenizer.renderChat(messages, chat.path("add_generation_prompt").asBoolean(true));
                assertEquals(chat.path("text").asText(), rendered, dir.getFileName() + " chat " + chats);
                assertArrayEquals(ints(chat.path("ids")), tokenizer.encode(rendered, false), dir.getFileName() + " chat ids " + chats);
                chats++;
            }
            assertTrue(expected.path("encodings").size() > 0, dir + ": expected.json has no encodings");
        }
        assertEquals(List.of(), failures, dir.getFileName().toString());
    }

    private static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) out[i] = array.get(i).asInt();
        return out;
    }

    @TestFactory
    Stream<DynamicTest> everyModelFixtureRendersItsChatTemplate() {
        return Fixtures.folders(dir -> Files.isRegularFile(dir.resolve("tokenizer.json")) && !isTokenizerFixture(dir)).stream()
                .map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> {
                    try (Tokenizer tokenizer = TokenizerLoader.load(dir)) {
                        assertTrue(tokenizer.hasChatTemplate(), dir + " has a chat template");
                        String text = tokenizer.renderChat(List.of(new ChatMessage("system", "Be brief."),
                                new ChatMessage("user", "Hi there")), true);
                        assertEquals("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n"
                                + "<|im_start|>assistant\n", text);
                        int imEnd = tokenizer.addedTokens().get("<|im_end|>");
                        assertTrue(tokenizer.eosIds().contains(imEnd), "eos ids " + tokenizer.eosIds() + " contain <|im_end|>");
                        int[] ids = tokenizer.encode(text, false);
                        assertEquals(text, tokenizer.decode(ids, false));
                        for (int id : ids) assertTrue(id >= 0 && id < tokenizer.vocabSize());
                        // Models may pad their vocabulary past the tokenizer's: such ids decode to nothing.
                        assertEquals("", tokenizer.decode(new int[] {tokenizer.vocabSize() + 3}, true));
                    }
                }));
    }
}
