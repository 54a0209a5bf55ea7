/**
 * Model plugin SPI: a plugin describes a model directory, then loads a graph whose forward pass
 * appends to per-layer KV layouts.
 *
 * {@snippet :
 * try (RuntimeModel model = plugin.load(directory, backend);
 *      Tensor hidden = model.graph().forwardHidden(ids, kvState);
 *      Tensor logits = model.graph().projectLogits(hidden, LogitSelection.LAST)) {
 *     // sample from logits
 * }
 * }
 */
package panamax.api.model;
