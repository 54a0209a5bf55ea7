package panamax.api.tensor.kernel;

import panamax.api.tensor.Tensor;

/**
 * The planes of {@link CodebookKernels#codebookQuantizeRotatedSketched}: each row's codebook codes of its rotated
 * direction (when it has any), its norm, the 1-bit sketch of the codes' residual and that residual's
 * norm in x's own scale. Owns its tensors: {@link #close} closes them.
 *
 * @param codes         U32 {@code [..., rows, cols·bits/32]}, MLX's LSB-first packing; null with no codebook bits
 * @param norms         F32 {@code [..., rows, 1]}: ‖x‖
 * @param sketch        U32 {@code [..., rows, cols/32]}: bit j set where the projected residual's element j is positive
 * @param residualNorms F32 {@code [..., rows, 1]}: {@code ‖x‖·‖r‖}, the norm of {@code R x − ‖x‖·codebook[codes]}
 * @since 0.3
 */
public record SketchedCodes(Tensor codes, Tensor norms, Tensor sketch, Tensor residualNorms) implements AutoCloseable {
    public SketchedCodes {
        if (norms == null || sketch == null || residualNorms == null) {
            throw new IllegalArgumentException("sketched codes: norms, sketch and residual norms are required");
        }
    }

    @Override
    public void close() {
        if (codes != null) codes.close();
        norms.close();
        sketch.close();
        residualNorms.close();
    }
}
