/**
 * GPT-2 as a third-party model plugin, built on panamax.model.support.
 *
 * {@snippet :
 * try (RuntimeModel model = new Gpt2Plugin().load(Path.of("gpt2"), backend)) {
 *     Tensor hidden = model.graph().forwardHidden(ids, kvState);
 * }
 * }
 */
package panamax.example.gpt2;
