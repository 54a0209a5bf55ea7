package panamax.model.support;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.model.support.config.QuantizationConfig;
import panamax.model.support.weights.WeightSource;

/**
 * A loaded model: owns its weights and the arena its safetensors files are mapped into; closing it
 * closes the weights, then unmaps the files. Its graph must not be used afterwards.
 *
 * {@snippet :
 * return LoadedModel.load(spec, directory, backend, options, Optional.empty(),
 *         source -> MyWeights.load(config, source), weights -> new MyGraph(config, weights, backend));
 * }
 */
public final class LoadedModel implements RuntimeModel {
    private final ModelSpec spec;
    private final AutoCloseable weights;
    private final AutoregressiveGraph graph;
    private final Arena arena;
    private boolean closed;

    private LoadedModel(ModelSpec spec, AutoCloseable weights, AutoregressiveGraph graph, Arena arena) {
        this.spec = spec;
        this.weights = weights;
        this.graph = graph;
        this.arena = arena;
    }

    /**
     * Maps the weights of {@code directory} into a new arena, loads them with {@code weights} and
     * builds the graph over them with {@code graph}; when either fails, what was loaded is released
     * (the weights loader closes its own partial tensors) and the arena closed.
     *
     * @param quantization the checkpoint's MLX quantization, empty when stored in floats
     * @throws panamax.api.error.BadModelFileException naming the file and tensor that is wrong
     */
    public static <W extends AutoCloseable> RuntimeModel load(ModelSpec spec, Path directory, Backend backend, LoadOptions options,
                                                              Optional<QuantizationConfig> quantization,
                                                              Function<WeightSource, W> weights, Function<W, AutoregressiveGraph> graph) {
        Arena arena = Arena.ofShared();
        W loaded = null;
        try {
            loaded = weights.apply(WeightSource.open(directory, arena, backend, options, quantization));
            return new LoadedModel(spec, loaded, graph.apply(loaded), arena);
        } catch (RuntimeException e) {
            if (loaded != null) {
                try {
                    loaded.close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            arena.close();
            throw e;
        }
    }

    @Override
    public ModelSpec spec() {
        return spec;
    }

    @Override
    public AutoregressiveGraph graph() {
        return graph;
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            weights.close();
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException("closing the weights failed", e);
        } finally {
            arena.close();
        }
    }
}
