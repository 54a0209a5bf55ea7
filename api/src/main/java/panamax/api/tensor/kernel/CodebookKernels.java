package panamax.api.tensor.kernel;

import java.util.List;
import panamax.api.tensor.DType;
import panamax.api.tensor.Tensor;

/**
 * Codebook codes and randomized Hadamard rotations, the encode and decode steps of vector quantizers
 * such as TurboQuant: each op is one pass over the rows, with no dense or rotated copy in between.
 * Every op's composition from {@link panamax.api.tensor.Ops} is stated in its contract.
 *
 * @since 0.4
 */
public interface CodebookKernels extends KernelFamily {

    /**
     * The dense values {@code codebook[code]·rowScale} of a codebook matrix: a new F32
     * {@code [..., rows, cols]}.
     */
    Tensor codebookDequantize(CodebookMatrix w);

    /**
     * {@code x [..., K]} times a codebook matrix, as {@link panamax.api.tensor.Ops#quantizedMatmul}:
     * with {@code transpose}, w is [N, K] and the result is {@code x·wᵀ [..., N]}; without, w is
     * [K, N] and the result is {@code x·w}. Leading axes broadcast as in
     * {@link panamax.api.tensor.Ops#matmul}. Result F32, accumulated in f32; w is never materialized.
     */
    Tensor codebookMatmul(Tensor x, CodebookMatrix w, boolean transpose);

    /**
     * Quantizes each row of floating {@code x [..., cols]} as its norm times codebook values: the
     * code of element j is the number of {@code boundaries} (F32 {@code [2^bits − 1]}, ascending)
     * strictly below {@code x_j / max(‖x‖, 2^-126)}, with ‖x‖ the row's f32 Euclidean norm. Returns
     * a matrix whose {@code packed} (U32 {@code [..., cols·bits/32]}, MLX's LSB-first packing) and
     * {@code rowScales} (the norms, F32 {@code [..., 1]}) are new and owned by the caller, and whose
     * {@code codebook} is the borrowed argument. {@code cols} must be a multiple of 32 (64 for 1 bit).
     * Codes of values within f32 rounding of a boundary may differ between backends.
     */
    CodebookMatrix codebookQuantize(Tensor x, Tensor codebook, Tensor boundaries, int bits);

    /**
     * The randomized Hadamard rotation along the last axis of floating {@code x [..., n]}, n a power
     * of two: forward {@code y = H·(signs ⊙ x)}, inverse {@code x = signs ⊙ (H·y)}, with H the
     * normalized (orthonormal, symmetric) Walsh–Hadamard matrix and {@code signs} (F32, ±1) broadcast
     * against x. Returns a new F32 tensor of x's shape.
     */
    Tensor hadamardRotate(Tensor x, Tensor signs, boolean inverse);

    /**
     * {@link #codebookQuantize} of {@link #hadamardRotate hadamardRotate(x, signs, false)}: the codes
     * and norms of each row's rotated direction, with no rotated copy of x.
     */
    CodebookMatrix codebookQuantizeRotated(Tensor x, Tensor signs, Tensor codebook, Tensor boundaries, int bits);

    /**
     * {@link #hadamardRotate hadamardRotate(codebookDequantize(w), signs, true)} cast to {@code dtype}:
     * rows decoded back to the unrotated domain, a new {@code [..., rows, cols]} tensor.
     */
    Tensor codebookDequantizeRotated(CodebookMatrix w, Tensor signs, DType dtype);

    /**
     * TurboQuant-prod's key encoding in one op. For each row of floating {@code x [..., n]} (n a power of
     * two, at least 64): the rotated direction {@code u = R x/max(‖x‖, 2^-126)} with
     * {@code R x = hadamardRotate(x, signs, false)}; its codebook codes as {@link #codebookQuantizeRotated}
     * gives them (none when {@code bits} is 0, and then codebook and boundaries may be null); the residual
     * {@code r = u − codebook[codes]} (u itself without codes); and the signs of
     * {@code S r = H·Dₖ·…·H·D₁·r}, the chain of {@code hadamardRotate(·, sketchSigns[i], false)} in list
     * order, as 1-bit codes (bit set where positive). The norms {@code ‖x‖} and residual norms
     * {@code ‖x‖·‖r‖} (the residual in x's own scale) are f32. Codes and sketch bits of values within
     * f32 rounding of a boundary may differ between backends.
     *
     * @param sketchSigns one or more F32 ±1 sign tensors, each broadcast against x as {@code signs} is
     */
    SketchedCodes codebookQuantizeRotatedSketched(Tensor x, Tensor signs, Tensor codebook, Tensor boundaries, int bits,
                                                  List<Tensor> sketchSigns);

    /**
     * The decoding of {@link #codebookQuantizeRotatedSketched}'s planes: per row
     * {@code hadamardRotate(codebookDequantize(w) + Sᵀ·codebookDequantize(sketch), signs, true)} cast to
     * {@code dtype}, with {@code Sᵀ = D₁·H·…·Dₖ·H} the transpose of the sketch's chain (the sketch's row
     * scales carry the estimator's factor per row). {@code w} is null when the rows have no codebook codes.
     *
     * @param sketch 1-bit codes {@code [..., rows, n/32]} over a two-entry book, with row scales
     */
    Tensor codebookDequantizeRotatedSketched(CodebookMatrix w, CodebookMatrix sketch, List<Tensor> sketchSigns, Tensor signs, DType dtype);
}
