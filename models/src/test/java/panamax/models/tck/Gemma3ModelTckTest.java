package panamax.models.tck;

import java.nio.file.Path;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.model.tck.ModelTck;
import panamax.models.family.Gemma3Plugin;

/** The Gemma3 plugin through the model kit on {@code fixtures/gemma3-tiny} (a reference made with bf16-rounded buffers). */
class Gemma3ModelTckTest extends ModelTck {
    @Override
    protected ModelPlugin plugin() {
        return new Gemma3Plugin();
    }

    @Override
    protected Path modelDirectory() {
        return Path.of(System.getProperty("panamax.fixtures", "../../shared/fixtures")).resolve("gemma3-tiny");
    }

    @Override
    protected LoadOptions.BufferPrecision buffers() {
        return LoadOptions.BufferPrecision.STORED_DTYPE;
    }
}
