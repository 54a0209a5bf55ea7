package panamax.engine.structured;

import java.util.Set;

/**
 * One row's place in a {@link TokenConstraint}: which tokens it may draw next and the state after
 * the tokens it drew. End-of-sequence ids are allowed only where the grammar is complete. Not
 * thread-safe; one per row.
 *
 * {@snippet :
 * GrammarCursor cursor = constraint.start(tokenizer.eosIds());
 * long[] allowed = cursor.allowed();      // mask logits outside it, then sample
 * cursor.accept(id);
 * if (cursor.complete()) stop();
 * }
 */
public final class GrammarCursor {
    private final TokenConstraint constraint;
    private final int[] stopIds;
    private GrammarState state;

    GrammarCursor(TokenConstraint constraint, GrammarState start, Set<Integer> stopIds) {
        this.constraint = constraint;
        this.state = start;
        this.stopIds = stopIds.stream().mapToInt(Integer::intValue).filter(id -> id >= 0 && id < constraint.vocabulary().size()).toArray();
    }

    /**
     * The ids allowed next, one bit per id ({@code allowed[id >> 6] >>> id & 1}): tokens whose bytes
     * the grammar accepts, plus the stop ids when the text so far is complete.
     *
     * @throws IllegalStateException when no token of the vocabulary can continue the text (a grammar
     *         that needs a character no token has)
     */
    public long[] allowed() {
        long[] cached = constraint.mask(state);
        long[] bits = cached.clone();
        boolean end = state.accepting();
        for (int id : stopIds) {
            if (end) bits[id >>> 6] |= 1L << id;
            else bits[id >>> 6] &= ~(1L << id);
        }
        for (long w : bits) if (w != 0) return bits;
        throw new IllegalStateException("the output grammar allows no token of this vocabulary here (after "
                + state + "); it needs a character that no token holds");
    }

    /** Whether {@code id} may come next; cheaper than {@link #allowed} for one id. */
    public boolean allows(int id) {
        for (int stop : stopIds) if (stop == id) return state.accepting();
        return constraint.accepts(state, id);
    }

    /**
     * Moves past {@code id}. A stop id leaves the state as it is (the row ends).
     *
     * @throws IllegalArgumentException when {@code id} is not allowed here
     */
    public void accept(int id) {
        for (int stop : stopIds) {
            if (stop == id) {
                if (!state.accepting()) throw new IllegalArgumentException("stop id " + id + " before the output is complete");
                return;
            }
        }
        GrammarState next = constraint.advance(state, id);
        if (next == null) throw new IllegalArgumentException("token " + id + " is not allowed by the output grammar here");
        state = next;
    }

    /** Whether the output is complete and nothing more may follow: the row should stop. */
    public boolean complete() {
        return state.complete();
    }

    /** Whether the output so far is complete (it may still go on). */
    public boolean accepting() {
        return state.accepting();
    }

    GrammarState state() {
        return state;
    }
}
