package panamax.api.model;

import java.nio.file.Path;

/**
 * Loads tokenizers from model directories; found with {@link java.util.ServiceLoader}.
 *
 * @since 0.1
 */
public interface TokenizerProvider {
    /** Stable id, e.g. {@code huggingface}. */
    String id();

    /** Whether {@code directory} holds files this provider reads (e.g. {@code tokenizer.json}). */
    boolean canLoad(Path directory);

    /**
     * Loads the tokenizer of {@code directory}; the result is owned by the caller.
     *
     * @throws panamax.api.error.BadModelFileException naming the file and field that is wrong
     */
    Tokenizer load(Path directory);
}
