package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.ScaleTck;

/** Runs the TCK's {@link ScaleTck} against the embedded Java backend. */
class JavaBackendScaleTckTest extends ScaleTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
