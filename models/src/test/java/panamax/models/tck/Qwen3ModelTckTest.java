package panamax.models.tck;

import java.nio.file.Path;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.model.tck.ModelTck;
import panamax.models.family.Qwen3Plugin;

/** The Qwen3 plugin through the model kit on {@code fixtures/qwen3-tiny} (a reference made with bf16-rounded buffers). */
class Qwen3ModelTckTest extends ModelTck {
    @Override
    protected ModelPlugin plugin() {
        return new Qwen3Plugin();
    }

    @Override
    protected Path modelDirectory() {
        return Path.of(System.getProperty("panamax.fixtures", "../../shared/fixtures")).resolve("qwen3-tiny");
    }

    @Override
    protected LoadOptions.BufferPrecision buffers() {
        return LoadOptions.BufferPrecision.STORED_DTYPE;
    }
}
