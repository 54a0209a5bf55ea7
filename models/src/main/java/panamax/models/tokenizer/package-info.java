/**
 * Hugging Face tokenizers: {@code tokenizer.json} through the {@code tokenizers} library, with
 * the added tokens, BOS / EOS and chat template of {@code tokenizer_config.json}.
 *
 * {@snippet :
 * try (Tokenizer tokenizer = TokenizerLoader.load(directory)) {
 *     String prompt = tokenizer.renderChat(List.of(new ChatMessage("user", "Hi")), true);
 *     int[] ids = tokenizer.encode(prompt, false);
 * }
 * }
 */
package panamax.models.tokenizer;
