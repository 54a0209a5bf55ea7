package ${package};

import java.nio.file.Files;
import java.nio.file.Path;
import panamax.api.model.ModelPlugin;
import panamax.model.tck.ModelTck;

/**
 * The plugin against panamax's model conformance kit: parity with the reference logits of a Hugging
 * Face directory (single prompt, cached decode, left-padded batch), every tensor missing or reshaped
 * failing with its name, no leak, and the plugin found in a plugins folder. The directory is {@code -Dpanamax.model.dir=DIR}: a checkpoint
 * of the architecture with {@code reference.safetensors} beside it (transformers' logits, in the
 * format panamax's fixtures use). Without it every test fails saying so: the kit never passes unchecked.
 */
class Gpt2PluginTckTest extends ModelTck {
    @Override
    protected ModelPlugin plugin() {
        return new Gpt2Plugin();
    }

    @Override
    protected Path modelDirectory() {
        String dir = System.getProperty("panamax.model.dir", "");
        if (dir.isBlank()) {
            throw new IllegalStateException("no model to check the plugin against: run with -Dpanamax.model.dir=DIR, a Hugging Face "
                    + Gpt2Plugin.MODEL_TYPE + " directory holding reference.safetensors (or -DskipTests to build the jar unchecked)");
        }
        Path path = Path.of(dir);
        if (!Files.isDirectory(path)) throw new IllegalArgumentException("-Dpanamax.model.dir=" + dir + " is not a directory");
        return path;
    }

    /** Also as a user installs it: the compiled plugin jarred into a plugins folder of a fresh JVM. */
    @Override
    protected boolean checkDropIn() {
        return true;
    }
}
