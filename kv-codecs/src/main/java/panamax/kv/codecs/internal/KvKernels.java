package panamax.kv.codecs.internal;

import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;

/**
 * The kernels a codec runs on one backend: the backend's own kernel families where it offers them
 * ({@link Backend#kernel}), compositions of its core ops where it does not ({@link ComposedCodebookKernels},
 * {@link ComposedAttention}), and the composition again for a format its fused attention declines.
 * Resolved once per codec; borrows the backend. Thread-safe.
 *
 * {@snippet :
 * KvKernels kernels = KvKernels.of(context.backend());
 * CodebookMatrix q = kernels.codebook().codebookQuantize(y, centroids, boundaries, bits);
 * Tensor out = kernels.quantizedAttention(queries, keys, values, scale, mask);
 * }
 */
public final class KvKernels {
    private final Ops ops;
    private final CodebookKernels codebook;
    private final ComposedAttention composed;
    private final AffineKvKernels affine;
    private final CodebookAttentionKernels codebookAttention;

    private KvKernels(Ops ops, CodebookKernels codebook, AffineKvKernels affine, CodebookAttentionKernels codebookAttention) {
        this.ops = ops;
        this.codebook = codebook;
        this.composed = new ComposedAttention(ops, codebook);
        this.affine = affine == null ? composed : affine;
        this.codebookAttention = codebookAttention == null ? composed : codebookAttention;
    }

    /** The kernels of {@code backend}: its own families, the compositions for those it lacks. */
    public static KvKernels of(Backend backend) {
        Ops ops = backend.ops();
        return new KvKernels(ops, backend.kernel(CodebookKernels.class).orElseGet(() -> new ComposedCodebookKernels(ops)),
                backend.kernel(AffineKvKernels.class).orElse(null), backend.kernel(CodebookAttentionKernels.class).orElse(null));
    }

    /** The backend's core ops. */
    public Ops ops() {
        return ops;
    }

    /** The backend's codebook kernels, or their composition from {@link #ops()}. */
    public CodebookKernels codebook() {
        return codebook;
    }

    /** {@link AffineKvKernels#quantizedAttention}: the backend's kernel, or the composition where it has none or declines. */
    public Tensor quantizedAttention(Tensor q, QuantizedMatrix keys, QuantizedMatrix values, double scale, AttentionMask mask) {
        return affine.quantizedAttention(q, keys, values, scale, mask)
                .orElseGet(() -> composed.quantizedAttention(q, keys, values, scale, mask).orElseThrow());
    }

    /** {@link CodebookAttentionKernels#codebookAttention}: the backend's kernel, or the composition where it has none or declines. */
    public Tensor codebookAttention(Tensor q, CodebookMatrix keys, CodebookMatrix values, double scale, AttentionMask mask) {
        return codebookAttention.codebookAttention(q, keys, values, scale, mask)
                .orElseGet(() -> composed.codebookAttention(q, keys, values, scale, mask).orElseThrow());
    }

    /** The sketched {@link CodebookAttentionKernels#codebookAttention}, as the unsketched one. */
    public Tensor codebookAttention(Tensor q, CodebookMatrix keys, Tensor qs, CodebookMatrix sketch, CodebookMatrix values, double scale,
                                    AttentionMask mask) {
        return codebookAttention.codebookAttention(q, keys, qs, sketch, values, scale, mask)
                .orElseGet(() -> composed.codebookAttention(q, keys, qs, sketch, values, scale, mask).orElseThrow());
    }
}
