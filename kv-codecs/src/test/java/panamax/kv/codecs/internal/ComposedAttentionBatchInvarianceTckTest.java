package panamax.kv.codecs.internal;

import java.util.Optional;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.AttentionBatchInvarianceTck;

/**
 * Runs the backend TCK's {@link AttentionBatchInvarianceTck} with the quantized planes attended by
 * {@link ComposedAttention} over the Java backend's ops and codebook kernels: what the codecs compute
 * where the fused attention declines (every case at fewer than 16 f32 lanes), so a row's output is the
 * same bits in any batch there too.
 */
class ComposedAttentionBatchInvarianceTckTest extends AttentionBatchInvarianceTck {
    private ComposedAttention composed;

    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }

    private ComposedAttention composed() {
        if (composed == null) composed = new ComposedAttention(ops(), KvKernels.of(backend()).codebook());
        return composed;
    }

    @Override
    protected Optional<AffineKvKernels> affineKvKernels() {
        return Optional.of(composed());
    }

    @Override
    protected Optional<CodebookAttentionKernels> codebookAttentionKernels() {
        return Optional.of(composed());
    }
}
