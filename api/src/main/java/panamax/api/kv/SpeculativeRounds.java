package panamax.api.kv;

/**
 * Speculative decoding's rounds: a round appends a row's newest token and its drafts, the verifier
 * accepts a prefix of them per row, and the rest are rolled back. Inside a round, row operations,
 * {@link KvLayout#trim} and prefill are refused.
 *
 * {@snippet :
 * layout.beginRound();
 * layout.append(keys, values);      // 1 + drafts per row
 * layout.rollback(keep);            // row r keeps keep[r] of them
 * }
 *
 * @since 0.4
 */
public interface SpeculativeRounds {
    /** Begins a speculative round: appends after this may be rolled back per row. */
    void beginRound();

    /** Accepts everything appended in the round. */
    void commitRound();

    /** Keeps {@code keep[r]} of the tokens row r appended in the round and drops the rest. */
    void rollback(int[] keep);

    /**
     * How many tokens row {@code row} may append in one multi-token step inside a speculative round
     * and still be attended exactly as if they had been appended one at a time;
     * {@link Integer#MAX_VALUE} when any number may. A delayed layout answers how many tokens are
     * left before the row changes precision (a single-token step converts it at once; a round
     * converts only when it ends).
     *
     * @since 0.2
     */
    default int exactRoundTokens(int row) {
        return Integer.MAX_VALUE;
    }
}
