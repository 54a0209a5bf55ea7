package panamax.api.model;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import panamax.api.tensor.Backend;

/**
 * A model family plugin, found with {@link java.util.ServiceLoader}. Declares the HF
 * architectures it reads; describes a model directory from its config alone; loads it.
 */
public interface ModelPlugin {
    /** Stable id, e.g. {@code llama}. */
    String id();

    /** HF {@code model_type} values this plugin reads, e.g. {@code llama}, {@code mistral}. */
    Set<String> modelTypes();

    /**
     * The spec of the model in {@code directory}, read from its config files only.
     *
     * @throws panamax.api.error.BadModelFileException naming the file and field that is wrong
     */
    ModelSpec describe(Path directory);

    /**
     * Loads the model's weights onto {@code backend} (borrowed); the result is owned by the caller.
     *
     * @throws panamax.api.error.BadModelFileException naming the file and tensor that is wrong
     */
    RuntimeModel load(Path directory, Backend backend);

    /**
     * Loads as {@link #load(Path, Backend)} does, placing weights and reporting progress as
     * {@code options} asks. The default ignores the options (mapped weights as the plugin reads
     * them, no progress) and delegates; plugins that can honour them override it.
     *
     * @throws panamax.api.error.BadModelFileException naming the file and tensor that is wrong
     * @since 0.2
     */
    default RuntimeModel load(Path directory, Backend backend, LoadOptions options) {
        return load(directory, backend);
    }

    /**
     * How models of {@code directory} write tool calls, when their chat template takes tools
     * (reads the {@code tools} variable); empty when the model cannot be given tools. Reads config
     * files only. The default declares none.
     *
     * @since 0.3
     */
    default Optional<ToolCallFormat> toolCallFormat(Path directory) {
        return Optional.empty();
    }
}
