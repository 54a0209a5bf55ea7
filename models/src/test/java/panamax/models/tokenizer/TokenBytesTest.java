package panamax.models.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import panamax.api.model.Tokenizer;

/**
 * {@link Tokenizer#tokenBytes} on the real Qwen3 (byte-level BPE) and Llama 2 (SentencePiece BPE
 * with byte fallback) tokenizers: the bytes of a text's ids, joined, are the text's UTF-8 (Llama
 * adds the leading space its decoder strips), tokens that hold part of a character give those
 * bytes, and special tokens give none.
 */
class TokenBytesTest {
    @ParameterizedTest
    @ValueSource(strings = {"tokenizer-qwen3", "tokenizer-llama2"})
    void joinedTokenBytesAreTheTextsUtf8(String name) throws Exception {
        Path dir = Fixtures.root().resolve(name);
        JsonNode expected = new ObjectMapper().readTree(dir.resolve("expected.json").toFile());
        int checked = 0;
        try (Tokenizer tokenizer = TokenizerLoader.load(dir)) {
            for (JsonNode e : expected.get("encodings")) {
                ByteArrayOutputStream joined = new ByteArrayOutputStream();
                for (JsonNode id : e.get("ids")) {
                    byte[] b = tokenizer.tokenBytes(id.asInt());
                    if (b == null) continue; // special tokens written in the text
                    joined.writeBytes(b);
                }
                String decoded = e.get("decoded").asText();
                byte[] want = decoded.getBytes(StandardCharsets.UTF_8);
                byte[] got = joined.toByteArray();
                if (name.contains("llama") && got.length == want.length + 1 && got[0] == ' ') got = java.util.Arrays.copyOfRange(got, 1, got.length);
                if (!specialsIn(tokenizer, e.get("ids"))) assertArrayEquals(want, got, "bytes of " + e.get("text"));
                checked++;
            }
            for (int special : tokenizer.specialIds()) assertNull(tokenizer.tokenBytes(special), "special id " + special);
            int splitTokens = 0;
            for (int id = 0; id < tokenizer.vocabSize(); id++) {
                byte[] b = tokenizer.tokenBytes(id);
                if (b != null && !wholeCharacters(b)) splitTokens++;
            }
            assertTrue(splitTokens > 0, "a byte-level vocabulary has tokens that end inside a character");
        }
        assertTrue(checked >= 15, checked + " strings checked");
    }

    private static boolean specialsIn(Tokenizer tokenizer, JsonNode ids) {
        for (JsonNode id : ids) if (tokenizer.specialIds().contains(id.asInt())) return true;
        return false;
    }

    private static boolean wholeCharacters(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
