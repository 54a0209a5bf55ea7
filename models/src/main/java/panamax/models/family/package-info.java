/**
 * Model family plugins: Llama, Mistral, Qwen2, Qwen3 and Gemma 3 text, each a few lines of
 * {@link panamax.models.decoder.DecoderFamily} data over the shared decoder.
 *
 * {@snippet :
 * ModelSpec spec = new Gemma3Plugin().describe(Path.of("gemma-3-1b-it")); // sliding layers declared
 * }
 */
package panamax.models.family;
