package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.ShapeOpsTck;

/** Runs the TCK's {@link ShapeOpsTck} against the embedded Java backend. */
class JavaBackendShapeOpsTckTest extends ShapeOpsTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
