package panamax.engine.speculative;

import panamax.engine.generate.RowState;

/**
 * One row as {@link SpeculativeDecoder} sees it: its state, a key that stays the same while it
 * runs (drafters keep per-row state by it), whether it may take drafts, and how a token it
 * produces is reported. Implemented by the generator's rows and the server's.
 */
public interface SpeculativeRow {
    /** Unique among the rows alive at once. */
    long key();

    RowState state();

    /** False when the planner refused speculation for this row (it then decodes one token per step). */
    boolean speculates();

    /** Samples and records the next token from the target logits {@code logits[from, from + vocab)} (a plain step). */
    void step(float[] logits, int from, int vocab);

    /**
     * Records {@code id}, chosen by verification from the target logits {@code logits[from, from + vocab)}
     * of its position (the logits are passed on for listeners that report them).
     */
    void accept(int id, float[] logits, int from, int vocab);
}
