package panamax.api.draft;

import java.util.Optional;
import panamax.api.model.Tokenizer;

/**
 * What a drafter is created with; everything is borrowed.
 *
 * @param tokenizer  the target model's tokenizer
 * @param vocabSize  rows of the target model's logits
 * @param draftModel the second model, when the user gave one
 */
public record DraftContext(Tokenizer tokenizer, int vocabSize, Optional<DraftModel> draftModel) {
}
