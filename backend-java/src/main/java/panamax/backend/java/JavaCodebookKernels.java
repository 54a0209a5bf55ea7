package panamax.backend.java;

import java.util.List;
import panamax.api.tensor.DType;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.SketchedCodes;

/**
 * The java backend's {@link CodebookKernels}: checks that arguments are open tensors of this backend,
 * then runs {@link CodebookOps}. Inputs are borrowed, results owned by the caller. Thread-safe.
 */
final class JavaCodebookKernels implements CodebookKernels {
    private final JavaBackend backend;
    private final CodebookOps codebook;

    JavaCodebookKernels(JavaBackend backend, CodebookOps codebook) {
        this.backend = backend;
        this.codebook = codebook;
    }

    private JavaTensor t(Tensor x, String name) {
        return backend.check(x, name);
    }

    @Override
    public Tensor codebookDequantize(CodebookMatrix w) {
        return codebook.dequantize(w);
    }

    @Override
    public Tensor codebookMatmul(Tensor x, CodebookMatrix w, boolean transpose) {
        return codebook.matmul(t(x, "x"), w, transpose);
    }

    @Override
    public CodebookMatrix codebookQuantize(Tensor x, Tensor codebook, Tensor boundaries, int bits) {
        return this.codebook.quantize(t(x, "x"), null, t(codebook, "codebook"), t(boundaries, "boundaries"), bits);
    }

    @Override
    public Tensor hadamardRotate(Tensor x, Tensor signs, boolean inverse) {
        return codebook.hadamard(t(x, "x"), t(signs, "signs"), inverse);
    }

    @Override
    public CodebookMatrix codebookQuantizeRotated(Tensor x, Tensor signs, Tensor codebook, Tensor boundaries, int bits) {
        return this.codebook.quantize(t(x, "x"), t(signs, "signs"), t(codebook, "codebook"), t(boundaries, "boundaries"), bits);
    }

    @Override
    public Tensor codebookDequantizeRotated(CodebookMatrix w, Tensor signs, DType dtype) {
        return codebook.dequantizeRotated(w, t(signs, "signs"), dtype);
    }

    @Override
    public SketchedCodes codebookQuantizeRotatedSketched(Tensor x, Tensor signs, Tensor codebook, Tensor boundaries, int bits,
                                                         List<Tensor> sketchSigns) {
        return this.codebook.quantizeSketched(t(x, "x"), t(signs, "signs"), codebook == null ? null : t(codebook, "codebook"),
                boundaries == null ? null : t(boundaries, "boundaries"), bits, checkedAll(sketchSigns, "sketchSigns"));
    }

    @Override
    public Tensor codebookDequantizeRotatedSketched(CodebookMatrix w, CodebookMatrix sketch, List<Tensor> sketchSigns, Tensor signs,
                                                    DType dtype) {
        return codebook.dequantizeSketched(w, sketch, checkedAll(sketchSigns, "sketchSigns"), t(signs, "signs"), dtype);
    }

    private List<JavaTensor> checkedAll(List<Tensor> tensors, String name) {
        if (tensors == null) throw new IllegalArgumentException(name + ": expected a list of tensors, found none");
        return tensors.stream().map(x -> t(x, name)).toList();
    }
}
