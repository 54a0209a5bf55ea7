package panamax.models.decoder;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.model.support.config.HfConfig;
import panamax.model.support.weights.WeightFiles;
import panamax.model.support.LoadedModel;

/**
 * The base of every dense decoder family plugin: a family is an id, its {@code model_type}s and a
 * {@link DecoderFamily}. Describes a directory from config.json (sliding layers declared as such,
 * so the planner gives them a rotating layout) and loads it with the one {@link DenseDecoderGraph}.
 * Stateless and thread-safe.
 */
public abstract class DecoderPlugin implements ModelPlugin {
    private final DecoderFamily family;
    private final Set<String> modelTypes;

    protected DecoderPlugin(DecoderFamily family, Set<String> modelTypes) {
        this.family = family;
        this.modelTypes = Set.copyOf(modelTypes);
    }

    @Override
    public String id() {
        return family.id();
    }

    @Override
    public Set<String> modelTypes() {
        return modelTypes;
    }

    /** The family's flags. */
    public DecoderFamily family() {
        return family;
    }

    /** The family's reading of {@code directory}'s config.json. */
    public DecoderConfig config(Path directory) {
        return config(directory, LoadOptions.BufferPrecision.FLOAT32);
    }

    private DecoderConfig config(Path directory, LoadOptions.BufferPrecision buffers) {
        HfConfig hf = HfConfig.read(directory.resolve("config.json"));
        DecoderConfig config = DecoderConfig.read(hf, family, buffers);
        if (!modelTypes.contains(config.modelType())) {
            throw hf.bad("model_type", "one of " + modelTypes.stream().sorted().toList() + " for the " + family.id() + " plugin",
                    "\"" + config.modelType() + "\"");
        }
        return config;
    }

    @Override
    public ModelSpec describe(Path directory) {
        return spec(directory, config(directory));
    }

    private static ModelSpec spec(Path directory, DecoderConfig c) {
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < c.layers(); i++) {
            int window = c.attention().get(i).window();
            needs.add(window > 0 ? LayerKvNeed.sliding(i, window, c.kvHeads(), c.headDim()) : LayerKvNeed.full(i, c.kvHeads(), c.headDim()));
        }
        Path name = directory.toAbsolutePath().normalize().getFileName();
        // Activations (and so identity KV) are f32: the Java backend computes in f32 and parity with f32 references needs it.
        long bytes = WeightFiles.storedBytes(directory);
        return new ModelSpec(name == null ? directory.toString() : name.toString(), c.modelType(), needs, DType.F32,
                bytes, c.vocab(), c.maxPositions(), ParameterCounter.count(c, directory, bytes));
    }

    @Override
    public RuntimeModel load(Path directory, Backend backend) {
        return load(directory, backend, LoadOptions.defaults());
    }

    @Override
    public RuntimeModel load(Path directory, Backend backend, LoadOptions options) {
        DecoderConfig c = config(directory, options.buffers());
        ModelSpec spec = spec(directory, c);
        return LoadedModel.load(spec, directory, backend, options, c.quantization(), source -> DecoderWeights.load(c, source),
                weights -> new DenseDecoderGraph(c, weights, backend));
    }
}
