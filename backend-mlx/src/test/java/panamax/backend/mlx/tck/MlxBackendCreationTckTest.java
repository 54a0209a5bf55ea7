package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.CreationTck;

/** Runs the TCK's {@link CreationTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendCreationTckTest extends CreationTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
