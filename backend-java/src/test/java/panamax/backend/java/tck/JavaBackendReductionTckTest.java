package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.ReductionTck;

/** Runs the TCK's {@link ReductionTck} against the embedded Java backend. */
class JavaBackendReductionTckTest extends ReductionTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
