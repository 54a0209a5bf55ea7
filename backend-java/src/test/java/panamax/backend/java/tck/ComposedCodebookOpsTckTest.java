package panamax.backend.java.tck;

import java.util.Set;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.Ops;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.CodebookTck;

/**
 * Runs the TCK's {@link CodebookTck} against the api's composed defaults of the codebook ops (what
 * a backend that does not override them computes), over the Java backend's primitive ops.
 */
class ComposedCodebookOpsTckTest extends CodebookTck {
    private Ops composed;

    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }

    @Override
    protected Ops codebookOps() {
        if (composed == null) {
            composed = ComposedDefaults.of(ops(), Set.of("codebookDequantize", "codebookMatmul", "codebookQuantize", "hadamardRotate",
                    "codebookQuantizeRotated", "codebookDequantizeRotated",
                    "codebookQuantizeRotatedSketched", "codebookDequantizeRotatedSketched", "codebookAttention", "attentionProbabilities"));
        }
        return composed;
    }
}
