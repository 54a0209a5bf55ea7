package panamax.engine.serve;

/**
 * How many prompt tokens a cohort's next prefill pass may take. With no stream running, the configured chunk: no one
 * waits on the pass. With streams running, each pass holds back their next token, so the pass is cut to about
 * {@code stepMillis}, from the time per token the scheduler's earlier passes took. A pass costs a fixed part (a
 * model's weights streamed once) plus a part per token; since the estimate is the last passes' time divided by their
 * tokens, a pass that came out short of the target raises the next budget and one that ran long lowers it, and the
 * budget settles where a pass takes the target (a 4-bit 1B model at 11 ms a token: a cohort of seven 64-token prompts
 * takes 4.9 s in one pass of 448 tokens, which running streams would wait through). Used on the scheduler thread only.
 */
final class PrefillPacer {
    /** Weight of the newest pass in the running estimate: enough to follow a change of batch or prompt mix in a few passes. */
    private static final double NEWEST = 0.5;

    private final int chunk;
    private final long stepNanos;
    private double nanosPerToken = Double.NaN;

    /**
     * @param chunk      the most prompt tokens a pass takes
     * @param stepMillis the target length of a pass while streams are running; 0 for no target
     */
    PrefillPacer(int chunk, int stepMillis) {
        this.chunk = chunk;
        this.stepNanos = stepMillis * 1_000_000L;
    }

    /** Prompt tokens the next pass may take (at least one column of each of the cohort's {@code rows}). */
    int budget(int rows, boolean streamsRunning) {
        if (!streamsRunning || stepNanos == 0 || Double.isNaN(nanosPerToken)) return chunk;
        long fits = (long) (stepNanos / nanosPerToken);
        return (int) Math.max(rows, Math.min(chunk, fits));
    }

    /** A pass of {@code tokens} prompt tokens took {@code nanos}. */
    void observe(int tokens, long nanos) {
        if (tokens <= 0 || nanos <= 0) return;
        double perToken = (double) nanos / tokens;
        nanosPerToken = Double.isNaN(nanosPerToken) ? perToken : NEWEST * perToken + (1 - NEWEST) * nanosPerToken;
    }
}
