package panamax.backend.java.tck;

import java.util.Set;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.Ops;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.AttentionTck;

/**
 * Runs the TCK's {@link AttentionTck} with {@code quantizedAttention} and
 * {@code attentionProbabilities} taken from the api's composed defaults (what a backend that does
 * not override them computes, e.g. MLX), over the Java backend's primitive ops.
 */
class ComposedQuantizedAttentionTckTest extends AttentionTck {
    private Ops composed;

    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }

    @Override
    protected Ops quantizedAttentionOps() {
        if (composed == null) composed = ComposedDefaults.of(ops(), Set.of("quantizedAttention", "attentionProbabilities"));
        return composed;
    }
}
