/**
 * Safetensors reading: header checks, memory mapping into the model's arena, sharded checkpoints.
 *
 * {@snippet :
 * try (Arena arena = Arena.ofShared()) {
 *     WeightFiles files = WeightFiles.open(directory, arena);
 *     try (Tensor norm = files.load("model.norm.weight", backend, new int[]{2048}, DType.BF16)) {
 *         // use it
 *     }
 * }
 * }
 */
package panamax.model.support.weights;
