package panamax.engine.speculative;

import java.util.Locale;

/**
 * Counters of speculative decoding over a session: target passes, drafted and accepted tokens,
 * tokens produced. Thread-safe (one writer, any reader).
 */
public final class SpeculationStats {
    private long passes;
    private long verifyPasses;
    private long rowSteps;
    private long drafted;
    private long accepted;
    private long produced;

    synchronized void record(int rows, int draftedTokens, int acceptedTokens, int producedTokens, boolean verified) {
        passes++;
        if (verified) verifyPasses++;
        rowSteps += rows;
        drafted += draftedTokens;
        accepted += acceptedTokens;
        produced += producedTokens;
    }

    /** Target forward passes of decode steps. */
    public synchronized long passes() {
        return passes;
    }

    /** Of {@link #passes}, those that verified drafts. */
    public synchronized long verifyPasses() {
        return verifyPasses;
    }

    public synchronized long drafted() {
        return drafted;
    }

    public synchronized long accepted() {
        return accepted;
    }

    public synchronized long produced() {
        return produced;
    }

    /** Accepted over drafted tokens (0 when nothing was drafted). */
    public synchronized double acceptanceRate() {
        return drafted == 0 ? 0 : (double) accepted / drafted;
    }

    /** Tokens each row gained per decode step on average (1 without speculation). */
    public synchronized double tokensPerRowStep() {
        return rowSteps == 0 ? 0 : (double) produced / rowSteps;
    }

    /** A copy of the counters now. */
    public synchronized SpeculationStats snapshot() {
        SpeculationStats s = new SpeculationStats();
        s.passes = passes;
        s.verifyPasses = verifyPasses;
        s.rowSteps = rowSteps;
        s.drafted = drafted;
        s.accepted = accepted;
        s.produced = produced;
        return s;
    }

    /** The counters gained since {@code earlier} (a snapshot of these). */
    public synchronized SpeculationStats since(SpeculationStats earlier) {
        SpeculationStats s = new SpeculationStats();
        s.passes = passes - earlier.passes;
        s.verifyPasses = verifyPasses - earlier.verifyPasses;
        s.rowSteps = rowSteps - earlier.rowSteps;
        s.drafted = drafted - earlier.drafted;
        s.accepted = accepted - earlier.accepted;
        s.produced = produced - earlier.produced;
        return s;
    }

    /** One line for people. */
    public synchronized String summary() {
        return String.format(Locale.ROOT, "%d of %d drafted tokens accepted (%.1f%%), %.2f tokens per row per decode step, %d of %d decode passes verified drafts",
                accepted, drafted, 100 * acceptanceRate(), tokensPerRowStep(), verifyPasses, passes);
    }
}
