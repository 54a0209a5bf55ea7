package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.ElementwiseTck;

/** Runs the TCK's {@link ElementwiseTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendElementwiseTckTest extends ElementwiseTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
