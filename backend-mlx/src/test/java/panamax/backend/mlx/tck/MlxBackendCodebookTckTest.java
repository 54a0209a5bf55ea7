package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.CodebookTck;
import panamax.kv.codecs.internal.ComposedAttention;
import panamax.kv.codecs.internal.ComposedCodebookKernels;

/**
 * Runs the TCK's {@link CodebookTck} against MLX; skipped, naming the missing library, without libmlxc.
 * MLX offers no codebook kernels, so they are checked as the KV codecs compute them there: composed
 * from MLX's core ops ({@link ComposedCodebookKernels}, {@link ComposedAttention}).
 */
class MlxBackendCodebookTckTest extends CodebookTck {
    private ComposedCodebookKernels codebook;

    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }

    @Override
    protected CodebookKernels codebookKernels() {
        if (codebook == null) codebook = new ComposedCodebookKernels(ops());
        return codebook;
    }

    @Override
    protected CodebookAttentionKernels codebookAttentionKernels() {
        return new ComposedAttention(ops(), codebookKernels());
    }
}
