/**
 * The MLX backend: {@code Backend}/{@code Ops} on MLX through mlx-c, whose bindings jextract
 * generated into the internal package {@code panamax.backend.mlx.c} (not exported). The native
 * library is looked up when the backend is created, so the module loads on machines without it.
 */
module panamax.backend.mlx {
    requires panamax.api;

    provides panamax.api.tensor.BackendProvider with panamax.backend.mlx.MlxBackendProvider;
}
