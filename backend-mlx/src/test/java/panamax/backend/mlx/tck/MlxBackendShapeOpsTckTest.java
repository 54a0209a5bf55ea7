package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.ShapeOpsTck;

/** Runs the TCK's {@link ShapeOpsTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendShapeOpsTckTest extends ShapeOpsTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
