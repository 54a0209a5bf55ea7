package panamax.backend.mlx.tck;

import panamax.api.tensor.BackendProvider;
import panamax.backend.mlx.MlxBackendProvider;
import panamax.backend.tck.QuantizationTck;

/** Runs the TCK's {@link QuantizationTck} against MLX; skipped, naming the missing library, without libmlxc. */
class MlxBackendQuantizationTckTest extends QuantizationTck {
    @Override
    protected BackendProvider provider() {
        return new MlxBackendProvider();
    }
}
