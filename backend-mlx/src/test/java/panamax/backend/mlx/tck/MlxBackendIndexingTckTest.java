package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.IndexingTck;

/** Runs the TCK's {@link IndexingTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendIndexingTckTest extends IndexingTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
