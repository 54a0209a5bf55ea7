package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.MemoryTck;

/** Runs the TCK's {@link MemoryTck} against the embedded Java backend. */
class JavaBackendMemoryTckTest extends MemoryTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
