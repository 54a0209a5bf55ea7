/**
 * Safetensors weights: header checks, memory mapping (or a huge-page copy) into the model's arena,
 * sharded checkpoints, and {@link panamax.model.support.weights.WeightSource}, the tensors by
 * Hugging Face name on a backend with their shapes checked.
 *
 * {@snippet :
 * try (Arena arena = Arena.ofShared()) {
 *     WeightSource weights = WeightSource.open(directory, arena, backend, LoadOptions.defaults(), Optional.empty());
 *     try (Tensor norm = weights.vector("model.norm.weight", 2048)) {
 *         // use it
 *     }
 * }
 * }
 */
package panamax.model.support.weights;
