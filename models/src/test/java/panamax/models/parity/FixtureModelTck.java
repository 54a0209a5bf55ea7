package panamax.models.parity;

import java.nio.file.Path;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.engine.parity.ParityRun;
import panamax.model.tck.ModelTck;

/**
 * The model kit over one fixture folder: the root's references were made with bf16-rounded
 * buffers, those of {@code new-families/} declare theirs.
 */
abstract class FixtureModelTck extends ModelTck {
    private final ModelPlugin plugin;
    private final String folder;

    FixtureModelTck(ModelPlugin plugin, String folder) {
        this.plugin = plugin;
        this.folder = folder;
    }

    @Override
    protected ModelPlugin plugin() {
        return plugin;
    }

    @Override
    protected Path modelDirectory() {
        return Fixtures.root().resolve(folder);
    }

    @Override
    protected LoadOptions.BufferPrecision buffers() {
        return Fixtures.isNewFamily(modelDirectory()) ? ParityRun.declaredBuffers(reference()) : LoadOptions.BufferPrecision.STORED_DTYPE;
    }
}
