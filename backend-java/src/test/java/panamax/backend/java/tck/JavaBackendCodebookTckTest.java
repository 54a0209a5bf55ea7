package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.CodebookTck;

/** Runs the TCK's {@link CodebookTck} against the embedded Java backend's fused codebook kernels. */
class JavaBackendCodebookTckTest extends CodebookTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
