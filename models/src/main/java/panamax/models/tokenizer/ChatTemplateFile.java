package panamax.models.tokenizer;

import java.nio.file.Path;
import java.util.Optional;

/** Reads a model directory's chat template source without loading its tokenizer. */
public final class ChatTemplateFile {
    private ChatTemplateFile() {
    }

    /**
     * The default chat template of {@code directory} ({@code chat_template.jinja}, else
     * {@code tokenizer_config.json}'s {@code chat_template}), if it has one.
     *
     * @throws panamax.api.error.BadModelFileException when the config names its template wrongly
     */
    public static Optional<String> read(Path directory) {
        return TokenizerFiles.chatTemplate(directory);
    }
}
