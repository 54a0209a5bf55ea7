package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.ScaleTck;

/** Runs the TCK's {@link ScaleTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendScaleTckTest extends ScaleTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
