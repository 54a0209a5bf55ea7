/**
 * Hugging Face config files as typed trees that name file and field on error ({@link
 * panamax.model.support.config.HfConfig}), and what is read from them: rotary embeddings in either
 * spelling, MLX quantization, generation defaults.
 *
 * {@snippet :
 * HfConfig config = HfConfig.read(directory.resolve("config.json"));
 * int hidden = config.requireInt("hidden_size", 1, 1 << 20);
 * RopeSpec rope = RopeReader.read(config, "full_attention", headDim, false);
 * int[] eos = GenerationConfig.read(directory).eosTokenIds();
 * }
 */
package panamax.model.support.config;
