package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.MlxFixtureTck;

/** Runs the TCK's {@link MlxFixtureTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendMlxFixtureTckTest extends MlxFixtureTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
