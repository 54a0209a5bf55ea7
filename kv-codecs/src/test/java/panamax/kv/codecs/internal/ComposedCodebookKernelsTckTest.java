package panamax.kv.codecs.internal;

import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.CodebookTck;

/**
 * Runs the backend TCK's {@link CodebookTck} against {@link ComposedCodebookKernels} and
 * {@link ComposedAttention} over them (what a codec computes on a backend without the codebook
 * kernels), over the Java backend's core ops.
 */
class ComposedCodebookKernelsTckTest extends CodebookTck {
    private ComposedCodebookKernels codebook;

    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
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
