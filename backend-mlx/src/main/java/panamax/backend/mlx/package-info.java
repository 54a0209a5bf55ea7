/**
 * The MLX backend: {@link panamax.backend.mlx.MlxBackendProvider} creates a backend whose tensors
 * are strided views over reference-counted MLX arrays, built lazily through mlx-c and computed on
 * {@code eval} or read-back. Needs libmlxc at run time ({@code -Dpanamax.mlx.library=PATH} or
 * {@code PANAMAX_MLX_LIBRARY}); without it the provider reports itself unavailable. Not exported;
 * reached through {@link java.util.ServiceLoader}.
 *
 * {@snippet :
 * BackendProvider provider = ServiceLoader.load(BackendProvider.class).stream()
 *         .map(ServiceLoader.Provider::get).filter(p -> p.id().equals("mlx")).findFirst().orElseThrow();
 * if (provider.unavailableReason().isEmpty()) {
 *     try (Backend backend = provider.create(BackendOptions.defaults());
 *          Tensor w = backend.fromFloats(new float[] {1, 2, 3, 4}, Shape.of(2, 2), DType.BF16);
 *          Tensor wt = backend.ops().transpose(w, 1, 0);
 *          Tensor y = backend.ops().matmul(w, wt)) {
 *         float[] values = backend.toFloats(y); // evaluates the lazy graph
 *     }
 * }
 * }
 */
package panamax.backend.mlx;
