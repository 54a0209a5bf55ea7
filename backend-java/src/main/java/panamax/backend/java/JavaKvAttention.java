package panamax.backend.java;

import java.util.Optional;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.QuantizedAttentionShape;

/**
 * The java backend's fused attention over quantized KV planes: {@link QuantizedAttention} for affine
 * planes and {@link CodebookAttention} for codebook planes. Checks the arguments' shapes and backend,
 * then runs the kernel, or declines (empty) formats it does not serve. Inputs are borrowed, results
 * owned by the caller. Thread-safe.
 */
final class JavaKvAttention implements AffineKvKernels, CodebookAttentionKernels {
    private final JavaBackend backend;
    private final QuantOps quant;
    private final CodebookOps codebook;

    JavaKvAttention(JavaBackend backend, QuantOps quant, CodebookOps codebook) {
        this.backend = backend;
        this.quant = quant;
        this.codebook = codebook;
    }

    private JavaTensor t(Tensor x, String name) {
        return backend.check(x, name);
    }

    /** The mask with null read as none; an explicit mask must be a tensor of this backend. */
    private AttentionMask checked(AttentionMask mask) {
        AttentionMask m = mask == null ? AttentionMask.NONE : mask;
        if (m instanceof AttentionMask.Explicit e) t(e.mask(), "mask");
        return m;
    }

    @Override
    public Optional<Tensor> quantizedAttention(Tensor q, QuantizedMatrix keys, QuantizedMatrix values, double scale, AttentionMask mask) {
        QuantizedAttentionShape.of(q, keys, values);
        return Optional.ofNullable(quant.quantizedAttention(t(q, "q"), keys, values, scale, checked(mask)));
    }

    @Override
    public Optional<Tensor> codebookAttention(Tensor q, CodebookMatrix keys, CodebookMatrix values, double scale, AttentionMask mask) {
        QuantizedAttentionShape.of(q, keys, values);
        return Optional.ofNullable(codebook.attention(t(q, "q"), keys, values, scale, checked(mask)));
    }

    @Override
    public Optional<Tensor> codebookAttention(Tensor q, CodebookMatrix keys, Tensor qs, CodebookMatrix sketch, CodebookMatrix values,
                                              double scale, AttentionMask mask) {
        QuantizedAttentionShape.of(q, keys, qs, sketch, values);
        return Optional.ofNullable(codebook.attention(t(q, "q"), keys, t(qs, "qs"), sketch, values, scale, checked(mask)));
    }
}
