package panamax.models.tck;

import java.nio.file.Path;
import panamax.api.model.ModelPlugin;
import panamax.model.tck.ModelTck;
import panamax.models.family.Qwen3MoePlugin;

/** The Qwen3-MoE plugin through the model kit on {@code fixtures/new-families/qwen3moe-tiny} (float32 buffers, as declared). */
class Qwen3MoeModelTckTest extends ModelTck {
    @Override
    protected ModelPlugin plugin() {
        return new Qwen3MoePlugin();
    }

    @Override
    protected Path modelDirectory() {
        return Path.of(System.getProperty("panamax.fixtures", "../../shared/fixtures")).resolve("new-families/qwen3moe-tiny");
    }
}
