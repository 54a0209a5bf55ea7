package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.FusedOpsTck;

/** Runs the TCK's {@link FusedOpsTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendFusedOpsTckTest extends FusedOpsTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
