package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.MatmulTck;

/** Runs the TCK's {@link MatmulTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendMatmulTckTest extends MatmulTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
