/**
 * Tensors and the backend SPI. Tensors returned by ops are owned by the caller; inputs are borrowed.
 *
 * {@snippet :
 * try (Backend backend = provider.create(BackendOptions.defaults());
 *      Tensor x = backend.fromFloats(new float[] {1, 2, 3, 4}, Shape.of(2, 2), DType.F32);
 *      Tensor y = backend.ops().matmul(x, x)) {
 *     float[] values = backend.toFloats(y);
 * }
 * }
 */
package panamax.api.tensor;
