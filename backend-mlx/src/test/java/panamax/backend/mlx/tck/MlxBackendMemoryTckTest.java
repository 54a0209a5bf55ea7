package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.MemoryTck;

/** Runs the TCK's {@link MemoryTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendMemoryTckTest extends MemoryTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
