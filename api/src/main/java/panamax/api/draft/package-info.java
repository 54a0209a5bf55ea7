/**
 * The drafter SPI of speculative decoding: a {@link panamax.api.draft.DrafterProvider} declares
 * what it needs ({@link panamax.api.draft.DrafterCapabilities}) and creates a
 * {@link panamax.api.draft.Drafter}, which proposes a few tokens per row; the engine verifies them
 * with the target model in one forward pass and rolls each row's KV back to what it accepted.
 *
 * {@snippet :
 * try (Drafter drafter = provider.create(params, new DraftContext(tokenizer, vocab, Optional.empty()))) {
 *     List<Draft> drafts = drafter.draft(List.of(new DraftRow(1, history, length, 0, 0)), 4);
 * }
 * }
 */
package panamax.api.draft;
