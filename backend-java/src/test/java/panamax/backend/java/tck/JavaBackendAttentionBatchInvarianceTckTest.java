package panamax.backend.java.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.AttentionBatchInvarianceTck;

/** Runs the TCK's {@link AttentionBatchInvarianceTck} against the embedded Java backend. */
class JavaBackendAttentionBatchInvarianceTckTest extends AttentionBatchInvarianceTck {
    @Override
    protected BackendProvider provider() {
        return new JavaBackendProvider();
    }
}
