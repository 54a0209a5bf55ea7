package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.MatmulTck;

/** Runs the TCK's {@link MatmulTck} against the embedded Java backend. */
class JavaBackendMatmulTckTest extends MatmulTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
