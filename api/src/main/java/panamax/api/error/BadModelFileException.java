package panamax.api.error;

import java.nio.file.Path;

/** A model file (config, safetensors, tokenizer) is malformed or does not match its config. */
public final class BadModelFileException extends PanamaxException {
    private final Path file;

    /**
     * @param file     the offending file
     * @param where    the field or tensor inside it, e.g. {@code "tensor model.norm.weight"}
     * @param expected what a valid file has there
     * @param found    what this file has
     */
    public BadModelFileException(Path file, String where, String expected, String found) {
        super(file + ": " + where + ": expected " + expected + ", found " + found);
        this.file = file;
    }

    public BadModelFileException(Path file, String message, Throwable cause) {
        super(file + ": " + message, cause);
        this.file = file;
    }

    public Path file() {
        return file;
    }
}
