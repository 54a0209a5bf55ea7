package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.ReductionTck;

/** Runs the TCK's {@link ReductionTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendReductionTckTest extends ReductionTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
