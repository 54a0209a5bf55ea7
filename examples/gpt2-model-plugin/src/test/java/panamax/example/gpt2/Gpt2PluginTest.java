package panamax.example.gpt2;

import java.nio.file.Path;
import panamax.api.model.ModelPlugin;
import panamax.model.tck.ModelTck;

/**
 * The GPT-2 plugin against transformers' logits for {@code fixtures/gpt2-tiny}, through the model
 * kit, also as a jar dropped into a plugins folder (this module's tests run on the class path, so
 * the plugin is outside the child JVM's module path).
 */
class Gpt2PluginTest extends ModelTck {
    @Override
    protected ModelPlugin plugin() {
        return new Gpt2Plugin();
    }

    @Override
    protected Path modelDirectory() {
        return Path.of(System.getProperty("panamax.fixtures", "../../../shared/fixtures")).resolve("gpt2-tiny");
    }

    @Override
    protected boolean checkDropIn() {
        return true;
    }
}
