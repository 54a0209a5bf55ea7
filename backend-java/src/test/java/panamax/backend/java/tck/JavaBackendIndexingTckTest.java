package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.IndexingTck;

/** Runs the TCK's {@link IndexingTck} against the embedded Java backend. */
class JavaBackendIndexingTckTest extends IndexingTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
