package ${package};

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.model.support.LoadedModel;
import panamax.model.support.weights.WeightFiles;

/**
 * The {@code ${pluginId}} model plugin: the GPT-2 architecture written on panamax.model.support, reading
 * Hugging Face directories whose config.json says {@code model_type: gpt2}. Start from here for an
 * architecture of your own: its model_type in {@code MODEL_TYPE}, its config in {@link Gpt2Config},
 * its tensors in {@link Gpt2Weights}, its forward pass in {@link Gpt2Graph}. panamax instantiates the
 * plugin at every discovery, so it only declares until {@code load}. Every layer attends fully.
 * Stateless and thread-safe.
 */
public final class Gpt2Plugin implements ModelPlugin {
    /** The config.json {@code model_type} this plugin reads. */
    static final String MODEL_TYPE = "gpt2";

    @Override
    public String id() {
        return "${pluginId}";
    }

    @Override
    public Set<String> modelTypes() {
        return Set.of(MODEL_TYPE);
    }

    @Override
    public ModelSpec describe(Path directory) {
        return spec(directory, Gpt2Config.read(directory));
    }

    private static ModelSpec spec(Path directory, Gpt2Config c) {
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < c.layers(); i++) needs.add(LayerKvNeed.full(i, c.heads(), c.headDim()));
        Path name = directory.toAbsolutePath().normalize().getFileName();
        return new ModelSpec(name == null ? MODEL_TYPE : name.toString(), MODEL_TYPE, needs, DType.F32, WeightFiles.storedBytes(directory),
                c.vocab(), c.positions());
    }

    @Override
    public RuntimeModel load(Path directory, Backend backend) {
        return load(directory, backend, LoadOptions.defaults());
    }

    @Override
    public RuntimeModel load(Path directory, Backend backend, LoadOptions options) {
        Gpt2Config c = Gpt2Config.read(directory);
        return LoadedModel.load(spec(directory, c), directory, backend, options, Optional.empty(),
                weights -> Gpt2Weights.load(c, weights), weights -> new Gpt2Graph(c, weights, backend, backend.ops()));
    }
}
