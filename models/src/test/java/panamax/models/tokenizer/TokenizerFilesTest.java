package panamax.models.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;

/** What the loader reads besides tokenizer.json, and the errors that name the offending file. */
class TokenizerFilesTest {
    @TempDir
    Path dir;

    private static final String TOKENIZER = """
            {"added_tokens": [{"id": 5, "content": "<|end|>", "special": true}, {"id": 6, "content": "<x>", "special": false}],
             "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}, "merges": []}}
            """;

    private void write(String name, String text) throws IOException {
        Files.writeString(dir.resolve(name), text);
    }

    @Test
    void readsAddedTokensEosIdsAndTheDefaultNamedTemplate() throws IOException {
        write("tokenizer.json", TOKENIZER);
        write("tokenizer_config.json", """
                {"eos_token": {"content": "<|end|>"}, "bos_token": null,
                 "chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}]}
                """);
        write("generation_config.json", "{\"eos_token_id\": [5, 6]}");
        TokenizerFiles files = TokenizerFiles.read(dir);
        assertEquals(7, files.vocabSize());
        assertEquals(Set.of(5), files.specialIds());
        assertEquals(Set.of(5, 6), files.eosIds());
        assertEquals(Optional.of("<|end|>"), files.eosToken());
        assertEquals(Optional.empty(), files.bosToken());
        assertEquals(Optional.of("D"), files.chatTemplate());
    }

    @Test
    void aChatTemplateJinjaFileWinsOverTheConfig() throws IOException {
        write("tokenizer.json", TOKENIZER);
        write("tokenizer_config.json", "{\"chat_template\": \"config\"}");
        write("chat_template.jinja", "file");
        assertEquals(Optional.of("file"), TokenizerFiles.read(dir).chatTemplate());
    }

    @Test
    void malformedFilesAreErrorsNamingThem() throws IOException {
        BadModelFileException missing = assertThrows(BadModelFileException.class, () -> TokenizerFiles.read(dir));
        assertEquals(dir.resolve("tokenizer.json"), missing.file());

        write("tokenizer.json", "{not json");
        assertEquals(dir.resolve("tokenizer.json"), assertThrows(BadModelFileException.class, () -> TokenizerFiles.read(dir)).file());

        write("tokenizer.json", TOKENIZER);
        write("generation_config.json", "{\"eos_token_id\": 99}");
        BadModelFileException eos = assertThrows(BadModelFileException.class, () -> TokenizerFiles.read(dir));
        assertTrue(eos.getMessage().contains("eos_token_id") && eos.getMessage().contains("99"), eos.getMessage());

        Files.delete(dir.resolve("generation_config.json"));
        write("tokenizer_config.json", "{\"added_tokens_decoder\": {\"x\": {\"content\": \"<y>\"}}}");
        BadModelFileException key = assertThrows(BadModelFileException.class, () -> TokenizerFiles.read(dir));
        assertTrue(key.getMessage().contains("added_tokens_decoder"), key.getMessage());

        write("tokenizer_config.json", "{\"chat_template\": 3}");
        BadModelFileException template = assertThrows(BadModelFileException.class, () -> TokenizerFiles.read(dir));
        assertTrue(template.getMessage().contains("chat_template"), template.getMessage());
    }
}
