package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.RowOpsBatchInvarianceTck;

/** Runs the TCK's {@link RowOpsBatchInvarianceTck} against the embedded Java backend. */
class JavaBackendRowOpsBatchInvarianceTckTest extends RowOpsBatchInvarianceTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
