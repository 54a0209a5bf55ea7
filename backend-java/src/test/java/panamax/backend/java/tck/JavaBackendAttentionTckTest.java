package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.AttentionTck;

/** Runs the TCK's {@link AttentionTck} against the embedded Java backend. */
class JavaBackendAttentionTckTest extends AttentionTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
