package panamax.server.scheduler;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import panamax.api.error.UnsupportedCombinationException;
import panamax.engine.generate.ModelSession;

/** A draft model whose tokenizer differs from the target's is refused before anything runs, naming the difference. */
class DraftModelVocabularyTest {
    @Test
    void aDraftModelWithAnotherTokenizerIsRefusedNamingHowTheyDiffer() {
        try (ModelSession target = Models.open("llama-tiny")) {
            UnsupportedCombinationException e = assertThrows(UnsupportedCombinationException.class,
                    () -> Drafts.draftModel(target, Models.directory(Models.DEMO), 3));
            String message = e.getMessage();
            assertTrue(message.contains("cannot draft for this model") && message.contains("same token ids"), message);
            assertTrue(message.contains("tokenizer vocabulary: the target's has 512 ids, the draft model's 4096"), message);
            assertTrue(message.contains("logits: the target scores 512 ids, the draft model 4096"), message);
        }
    }
}
