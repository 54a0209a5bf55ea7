package panamax.models.decoder;

import java.lang.foreign.Arena;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;

/**
 * A loaded decoder (dense, or Gemma 3n's). Owns its weights and the arena its safetensors files are mapped into;
 * closing it closes the weights, then unmaps the files. Its graph must not be used afterwards.
 */
final class DecoderModel implements RuntimeModel {
    private final ModelSpec spec;
    private final AutoCloseable weights;
    private final AutoregressiveGraph graph;
    private final Arena arena;
    private boolean closed;

    DecoderModel(ModelSpec spec, AutoCloseable weights, AutoregressiveGraph graph, Arena arena) {
        this.spec = spec;
        this.weights = weights;
        this.graph = graph;
        this.arena = arena;
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
