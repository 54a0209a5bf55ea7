/**
 * The model conformance suite. A model plugin's test names its plugin and a model directory that
 * holds a {@code reference.safetensors} (the fixtures' format) and inherits the checks:
 *
 * {@snippet :
 * class Gpt2PluginTest extends ModelTck {
 *     protected ModelPlugin plugin() { return new Gpt2Plugin(); }
 *     protected Path modelDirectory() { return Path.of("fixtures/gpt2-tiny"); }
 * }
 * }
 */
package panamax.model.tck;
