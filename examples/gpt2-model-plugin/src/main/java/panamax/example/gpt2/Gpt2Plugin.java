package panamax.example.gpt2;

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
 * The GPT-2 family as a third-party model plugin: reads {@code model_type: gpt2} directories.
 * Every layer attends fully. Stateless and thread-safe.
 */
public final class Gpt2Plugin implements ModelPlugin {
    @Override
    public String id() {
        return "gpt2";
    }

    @Override
    public Set<String> modelTypes() {
        return Set.of("gpt2");
    }

    @Override
    public ModelSpec describe(Path directory) {
        return spec(directory, Gpt2Config.read(directory));
    }

    private static ModelSpec spec(Path directory, Gpt2Config c) {
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < c.layers(); i++) needs.add(LayerKvNeed.full(i, c.heads(), c.headDim()));
        Path name = directory.toAbsolutePath().normalize().getFileName();
        return new ModelSpec(name == null ? "gpt2" : name.toString(), "gpt2", needs, DType.F32, WeightFiles.storedBytes(directory),
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
