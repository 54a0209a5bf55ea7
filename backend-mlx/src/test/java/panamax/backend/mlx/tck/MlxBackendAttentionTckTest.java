package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.AttentionTck;
import panamax.kv.codecs.internal.ComposedAttention;
import panamax.kv.codecs.internal.ComposedCodebookKernels;

/**
 * Runs the TCK's {@link AttentionTck} against MLX; skipped, naming the missing library, without libmlxc.
 * MLX offers no {@link AffineKvKernels}, so {@code quantizedAttention} is checked as the KV codecs
 * compute it there: composed from MLX's core ops ({@link ComposedAttention}).
 */
class MlxBackendAttentionTckTest extends AttentionTck {
    private AffineKvKernels composed;

    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }

    @Override
    protected AffineKvKernels affineKvKernels() {
        if (composed == null) composed = new ComposedAttention(ops(), new ComposedCodebookKernels(ops()));
        return composed;
    }
}
