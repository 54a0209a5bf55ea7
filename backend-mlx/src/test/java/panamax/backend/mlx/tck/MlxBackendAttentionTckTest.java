package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.AttentionTck;

/** Runs the TCK's {@link AttentionTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendAttentionTckTest extends AttentionTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
