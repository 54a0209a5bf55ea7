package panamax.engine.serve;

/**
 * Receives one request's progress. Called on the scheduler thread, in order: {@link #onAdmitted}
 * once, {@link #onToken} per generated token (with {@link #onIdle} between them when the row waits on
 * other work), then exactly one of {@link #onFinish} or {@link #onError}. Implementations must return quickly and never block (hand the event to another
 * thread, e.g. through a queue): every running row waits while one is called.
 */
public interface RowEvents {
    /** The request left the queue: its prefill starts, {@code plan} says how it runs. */
    default void onAdmitted(RequestPlan plan) {
    }

    /** One generated token. */
    void onToken(TokenEvent token);

    /** The row ended normally (stop id, stop string or token limit). */
    void onFinish(Completion completion);

    /** The row ended because the step failed or the scheduler shut down before it finished. */
    void onError(RuntimeException error);

    /**
     * The scheduler turns to other work (a prefill chunk) before this row's next token: an implementation that
     * holds tokens back to hand them over together must hand them over now. Defaults to nothing.
     */
    default void onIdle() {
    }

    /**
     * The logits the row's next token is drawn from, borrowed for the call only: for tests and
     * tools that check numerics. Defaults to ignoring them.
     */
    default void onLogits(float[] logits, int from, int vocab) {
    }
}
