package panamax.engine.structured;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The trie walk's mask equals the plain answer, token by token: for states reached by random
 * allowed tokens under generated schemas, a token is in the mask exactly when its bytes, fed one
 * by one to the automaton, are accepted.
 */
class TokenMaskTest {
    private final PieceTokenizer tokenizer = new PieceTokenizer();

    @Test
    void theTrieMaskIsExactlyTheTokensWhoseBytesTheGrammarAccepts() {
        AtomicInteger states = new AtomicInteger();
        qt().withExamples(60).forAll(longs().all()).checkAssert(seed -> {
            TokenConstraint constraint = Constraints.bind(Constraints.jsonSchema(RandomSchemas.of(seed)), tokenizer);
            SplittableRandom random = new SplittableRandom(seed);
            GrammarCursor cursor = constraint.start(tokenizer.eosIds());
            for (int step = 0; step < 40 && !cursor.complete(); step++) {
                long[] mask = constraint.mask(cursor.state());
                int allowed = 0;
                for (int id = 0; id < tokenizer.vocabSize(); id++) {
                    boolean inMask = (mask[id >>> 6] >>> id & 1) != 0;
                    assertEquals(constraint.accepts(cursor.state(), id), inMask, "token " + id + " at step " + step);
                    if (inMask) allowed++;
                }
                states.incrementAndGet();
                if (allowed == 0) break;
                int pick = random.nextInt(allowed);
                for (int id = 0; ; id++) {
                    if ((mask[id >>> 6] >>> id & 1) != 0 && pick-- == 0) {
                        cursor.accept(id);
                        break;
                    }
                }
            }
        });
        assertTrue(states.get() >= 500, states + " states checked");
    }
}
