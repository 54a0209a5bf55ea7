package panamax.models.tokenizer;

import java.nio.file.Files;
import java.nio.file.Path;
import panamax.api.model.Tokenizer;
import panamax.api.model.TokenizerProvider;

/** Provides {@link TokenizerLoader} to the engine through {@link java.util.ServiceLoader}. */
public final class HfTokenizerProvider implements TokenizerProvider {
    @Override
    public String id() {
        return "huggingface";
    }

    @Override
    public boolean canLoad(Path directory) {
        return Files.isRegularFile(directory.resolve("tokenizer.json"));
    }

    @Override
    public Tokenizer load(Path directory) {
        return TokenizerLoader.load(directory);
    }
}
