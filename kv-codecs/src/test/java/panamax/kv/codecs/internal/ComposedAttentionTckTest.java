package panamax.kv.codecs.internal;

import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.AttentionTck;

/**
 * Runs the backend TCK's {@link AttentionTck} with {@code quantizedAttention} taken from
 * {@link ComposedAttention} (what a codec computes on a backend without {@link AffineKvKernels}, or
 * for a format its kernel declines), over the Java backend's core ops.
 */
class ComposedAttentionTckTest extends AttentionTck {
    private AffineKvKernels composed;

    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }

    @Override
    protected AffineKvKernels affineKvKernels() {
        if (composed == null) composed = new ComposedAttention(ops(), new ComposedCodebookKernels(ops()));
        return composed;
    }
}
