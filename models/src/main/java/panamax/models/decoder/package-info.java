/**
 * The one dense decoder every family plugin runs: config reading (both config.json spellings),
 * weight loading (dense or MLX-quantized) and the forward pass.
 *
 * {@snippet :
 * ModelPlugin plugin = new panamax.models.family.LlamaPlugin();
 * try (RuntimeModel model = plugin.load(directory, backend)) {
 *     Tensor hidden = model.graph().forwardHidden(ids, kvState);
 * }
 * }
 */
package panamax.models.decoder;
