/**
 * Hugging Face config files: typed access that names file and field on error, and generation defaults.
 *
 * {@snippet :
 * int[] eos = GenerationConfig.read(directory).eosTokenIds();
 * }
 */
package panamax.model.support.config;
