package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.CodebookTck;

/** Runs the TCK's {@link CodebookTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendCodebookTckTest extends CodebookTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
