package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.CreationTck;

/** Runs the TCK's {@link CreationTck} against the embedded Java backend. */
class JavaBackendCreationTckTest extends CreationTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
