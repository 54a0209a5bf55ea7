package panamax.models.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import panamax.api.error.BadModelFileException;
import panamax.api.model.Tokenizer;

/**
 * Loads the tokenizer of a Hugging Face model directory: {@code tokenizer.json} through the
 * {@code tokenizers} library, plus {@code tokenizer_config.json} (added tokens, BOS / EOS, chat
 * template) and {@code generation_config.json} (EOS ids).
 *
 * {@snippet :
 * try (Tokenizer tokenizer = TokenizerLoader.load(Path.of("models/qwen3"))) {
 *     int[] ids = tokenizer.encode("Hello", false);
 * }
 * }
 */
public final class TokenizerLoader {
    /** No truncation or padding: a prompt is encoded whole, as transformers does by default. */
    private static final Map<String, String> OPTIONS = Map.of("truncation", "false", "padding", "false");

    private TokenizerLoader() {
    }

    /**
     * The directory's tokenizer, owned by the caller.
     *
     * @throws BadModelFileException naming the file that is missing or malformed
     */
    public static Tokenizer load(Path directory) {
        TokenizerFiles files = TokenizerFiles.read(directory);
        Path tokenizerJson = directory.resolve("tokenizer.json");
        try {
            return new HfTokenizer(HuggingFaceTokenizer.newInstance(tokenizerJson, OPTIONS), files, tokenizerJson);
        } catch (IOException | RuntimeException e) {
            throw new BadModelFileException(tokenizerJson, "the tokenizers library cannot load it: " + e.getMessage(), e);
        }
    }
}
