package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.ElementwiseTck;

/** Runs the TCK's {@link ElementwiseTck} against the embedded Java backend. */
class JavaBackendElementwiseTckTest extends ElementwiseTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
