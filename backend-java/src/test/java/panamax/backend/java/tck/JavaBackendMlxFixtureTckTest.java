package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.MlxFixtureTck;

/** Runs the TCK's {@link MlxFixtureTck} against the embedded Java backend. */
class JavaBackendMlxFixtureTckTest extends MlxFixtureTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
