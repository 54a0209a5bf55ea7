package panamax.api.tensor.kernel;

import java.util.Optional;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Tensor;

/**
 * Attention that looks codebook keys and values up where they lie (a vector-quantized cache such as
 * TurboQuant's, in its rotated domain), never materializing them.
 *
 * @since 0.4
 */
public interface CodebookAttentionKernels extends KernelFamily {

    /**
     * {@code softmax(q·Kᵀ·scale + mask)·V} with the semantics of
     * {@link panamax.api.tensor.Ops#scaledDotProductAttention} over codebook keys and values: q
     * {@code [B, Hq, Tq, D]}; keys packed {@code [B, Hkv, Tk, D·bits/32]} with row scales
     * {@code [B, Hkv, Tk, 1]}; values the same with Dv columns. Entry (t, j) of keys is
     * {@code codebook[code]·rowScale[t]}. Scores, softmax and sums in f32; the result is
     * {@code [B, Hq, Tq, Dv]} in q's dtype.
     *
     * @return the attention, or empty when this kernel does not serve these matrices
     * @throws IllegalArgumentException as {@link QuantizedAttentionShape#of(Tensor, CodebookMatrix, CodebookMatrix)}
     */
    Optional<Tensor> codebookAttention(Tensor q, CodebookMatrix keys, CodebookMatrix values, double scale, AttentionMask mask);

    /**
     * {@link #codebookAttention(Tensor, CodebookMatrix, CodebookMatrix, double, AttentionMask)} whose
     * scores add a second, sketched key term: {@code softmax(scale·(q·Kᵀ + qs·Sᵀ) + mask)·V}, with
     * {@code qs [B, Hq, Tq, Ds]} the queries in the sketch's space and {@code sketch} codebook rows
     * {@code [B, Hkv, Tk, Ds·bits/32]} of the same keys (TurboQuant's QJL sign bits: a ±1 codebook
     * whose row scales carry each key's estimator factor).
     *
     * @return the attention, or empty when this kernel does not serve these matrices or query dtypes
     * @throws IllegalArgumentException as
     *         {@link QuantizedAttentionShape#of(Tensor, CodebookMatrix, Tensor, CodebookMatrix, CodebookMatrix)}
     */
    Optional<Tensor> codebookAttention(Tensor q, CodebookMatrix keys, Tensor qs, CodebookMatrix sketch, CodebookMatrix values, double scale,
                                       AttentionMask mask);
}
