package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.FusedOpsTck;

/** Runs the TCK's {@link FusedOpsTck} against the embedded Java backend. */
class JavaBackendFusedOpsTckTest extends FusedOpsTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
