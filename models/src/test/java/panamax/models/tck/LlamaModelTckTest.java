package panamax.models.tck;

import java.nio.file.Path;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.model.tck.ModelTck;
import panamax.models.family.LlamaPlugin;

/** The Llama plugin through the model kit on {@code fixtures/llama-tiny} (a reference made with bf16-rounded buffers). */
class LlamaModelTckTest extends ModelTck {
    @Override
    protected ModelPlugin plugin() {
        return new LlamaPlugin();
    }

    @Override
    protected Path modelDirectory() {
        return Path.of(System.getProperty("panamax.fixtures", "../../shared/fixtures")).resolve("llama-tiny");
    }

    @Override
    protected LoadOptions.BufferPrecision buffers() {
        return LoadOptions.BufferPrecision.STORED_DTYPE;
    }
}
