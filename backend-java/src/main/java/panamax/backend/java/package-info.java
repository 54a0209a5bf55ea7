/**
 * The embedded java backend: {@link panamax.backend.java.JavaBackendProvider} creates a backend
 * whose tensors are strided views over reference-counted off-heap storage. Not exported; reached
 * through {@link java.util.ServiceLoader}.
 *
 * {@snippet :
 * BackendProvider provider = ServiceLoader.load(BackendProvider.class).stream()
 *         .map(ServiceLoader.Provider::get).filter(p -> p.id().equals("java")).findFirst().orElseThrow();
 * try (Backend backend = provider.create(BackendOptions.defaults());
 *      Tensor w = backend.fromFloats(new float[] {1, 2, 3, 4}, Shape.of(2, 2), DType.BF16);
 *      Tensor wt = backend.ops().transpose(w, 1, 0);
 *      Tensor y = backend.ops().matmul(w, wt)) {
 *     float[] values = backend.toFloats(y);
 * }
 * }
 */
package panamax.backend.java;
