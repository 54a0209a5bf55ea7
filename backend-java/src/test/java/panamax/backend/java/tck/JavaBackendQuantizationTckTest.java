package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.QuantizationTck;

/** Runs the TCK's {@link QuantizationTck} against the embedded Java backend. */
class JavaBackendQuantizationTckTest extends QuantizationTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
