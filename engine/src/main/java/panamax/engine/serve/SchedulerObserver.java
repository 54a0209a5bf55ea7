package panamax.engine.serve;

/**
 * Hooks for metrics, called on the scheduler thread (except {@link #queued}, called on the
 * submitting thread); every method defaults to nothing and must return quickly.
 */
public interface SchedulerObserver {
    SchedulerObserver NONE = new SchedulerObserver() {
    };

    /** A request entered the queue. */
    default void queued() {
    }

    /** A request was admitted with {@code promptTokens} tokens, {@code cachedTokens} of them reused. */
    default void admitted(int promptTokens, int cachedTokens) {
    }

    /** A request's first token came {@code seconds} after it was submitted. */
    default void firstToken(double seconds) {
    }

    /** A row's next token came {@code seconds} after its previous one. */
    default void interToken(double seconds) {
    }

    /**
     * A request ended: {@code outcome} is {@code stop}, {@code length}, {@code cancelled} or {@code error}.
     */
    default void finished(String outcome, int completionTokens, double seconds) {
    }
}
