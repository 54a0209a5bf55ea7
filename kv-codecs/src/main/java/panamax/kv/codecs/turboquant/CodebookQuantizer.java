package panamax.kv.codecs.turboquant;

import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.SketchedCodes;

/**
 * The Lloyd-Max codebook of one (dimension, bits) as backend tensors — its centroids and sorted
 * decision boundaries — and the codebook matrices that quantize rotated rows
 * ({@link CodebookKernels#codebookQuantize}: per-row norm, boundary codes and packing in one op) and view stored
 * planes for {@link CodebookKernels#codebookMatmul} / {@link CodebookKernels#codebookDequantize}. Owns its two tensors.
 */
final class CodebookQuantizer implements AutoCloseable {
    private final LloydMaxCodebook codebook;
    private final Tensor boundaries; // F32 [2^bits − 1]
    private final Tensor centroids;  // F32 [2^bits]

    CodebookQuantizer(Backend backend, int dimension, int bits) {
        codebook = LloydMaxCodebook.of(dimension, bits);
        float[] b = codebook.boundariesAsFloats();
        boundaries = backend.fromFloats(b, Shape.of(b.length), DType.F32);
        float[] c = codebook.centroidsAsFloats();
        centroids = backend.fromFloats(c, Shape.of(c.length), DType.F32);
    }

    LloydMaxCodebook codebook() {
        return codebook;
    }

    /**
     * Quantizes the direction of each borrowed rotated row {@code y [..., n]}: the result's packed
     * codes {@code [..., n·bits/32]} and norms {@code [..., 1]} are new and owned by the caller; its
     * codebook is this quantizer's (borrowed).
     */
    CodebookMatrix quantize(CodebookKernels kernels, Tensor y) {
        return kernels.codebookQuantize(y, centroids, boundaries, codebook.bits());
    }

    /**
     * As {@link #quantize} of {@code R x} for borrowed unpadded {@code x [..., n]} and the rotation's
     * borrowed signs, in one pass ({@link CodebookKernels#codebookQuantizeRotated}): no rotated copy of x.
     */
    CodebookMatrix quantizeRotated(CodebookKernels kernels, Tensor x, Tensor signs) {
        return kernels.codebookQuantizeRotated(x, signs, centroids, boundaries, codebook.bits());
    }

    /**
     * TurboQuant-prod's key planes for borrowed power-of-two-wide {@code x [..., n]}: the codes and norms of
     * {@link #quantizeRotated}, the 1-bit sketch of the codes' residual and its norm
     * ({@link CodebookKernels#codebookQuantizeRotatedSketched}); with a null quantizer, no codes. All new.
     */
    static SketchedCodes quantizeRotatedSketched(CodebookKernels kernels, CodebookQuantizer quantizer, Tensor x, Tensor signs, List<Tensor> sketchSigns) {
        return quantizer == null
                ? kernels.codebookQuantizeRotatedSketched(x, signs, null, null, 0, sketchSigns)
                : kernels.codebookQuantizeRotatedSketched(x, signs, quantizer.centroids, quantizer.boundaries, quantizer.codebook.bits(), sketchSigns);
    }

    /** A view of borrowed stored codes {@code [..., n·bits/32]} with borrowed row scales {@code [..., 1]} (or null). */
    CodebookMatrix matrix(Tensor packed, Tensor rowScales) {
        return new CodebookMatrix(packed, centroids, rowScales, codebook.bits());
    }

    @Override
    public void close() {
        boundaries.close();
        centroids.close();
    }
}
