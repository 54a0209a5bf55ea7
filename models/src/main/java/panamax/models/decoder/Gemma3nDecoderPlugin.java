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
 * The base of the Gemma 3n plugin: reads config.json as {@link Gemma3nConfig}, declares each layer's
 * KV need with its donor (the last {@code num_kv_shared_layers} layers borrow, so the planner gives
 * them no storage), and loads the text decoder with {@link Gemma3nGraph}. Stateless and thread-safe.
 */
public abstract class Gemma3nDecoderPlugin implements ModelPlugin {
    private final String id;
    private final Set<String> modelTypes;

    protected Gemma3nDecoderPlugin(String id, Set<String> modelTypes) {
        this.id = id;
        this.modelTypes = Set.copyOf(modelTypes);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Set<String> modelTypes() {
        return modelTypes;
    }

    /** The plugin's reading of {@code directory}'s config.json. */
    public Gemma3nConfig config(Path directory, LoadOptions.BufferPrecision buffers) {
        HfConfig hf = HfConfig.read(directory.resolve("config.json"));
        Gemma3nConfig config = Gemma3nConfig.read(hf, buffers);
        if (!modelTypes.contains(config.modelType())) {
            throw hf.bad("model_type", "one of " + modelTypes.stream().sorted().toList() + " for the " + id + " plugin",
                    "\"" + config.modelType() + "\"");
        }
        return config;
    }

    @Override
    public ModelSpec describe(Path directory) {
        return spec(directory, config(directory, LoadOptions.BufferPrecision.FLOAT32));
    }

    private static ModelSpec spec(Path directory, Gemma3nConfig c) {
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < c.layers(); i++) {
            needs.add(new LayerKvNeed(i, c.attention().get(i).window(), c.kvHeads(), c.headDim(), c.donor(i)));
        }
        Path name = directory.toAbsolutePath().normalize().getFileName();
        String display = name == null ? directory.toString() : name.toString();
        if (!c.ignoredTowers().isEmpty()) display += " [text only: " + String.join(" and ", c.ignoredTowers()) + " towers not loaded]";
        return new ModelSpec(display, c.modelType(), needs, DType.F32, WeightFiles.storedBytes(directory), c.vocab(), c.maxPositions());
    }

    @Override
    public RuntimeModel load(Path directory, Backend backend) {
        return load(directory, backend, LoadOptions.defaults());
    }

    @Override
    public RuntimeModel load(Path directory, Backend backend, LoadOptions options) {
        Gemma3nConfig c = config(directory, options.buffers());
        ModelSpec spec = spec(directory, c);
        return LoadedModel.load(spec, directory, backend, options, c.quantization(), source -> Gemma3nWeights.load(c, source, backend),
                weights -> new Gemma3nGraph(c, weights, backend));
    }
}
