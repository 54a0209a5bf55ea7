package panamax.engine.serve;

/**
 * A submitted request's handle: lets its caller cancel it (a client that went away). Thread-safe.
 */
public final class Ticket {
    private final long id;
    private volatile boolean cancelled;

    Ticket(long id) {
        this.id = id;
    }

    /** A number unique within the scheduler, in submission order. */
    public long id() {
        return id;
    }

    /**
     * Asks the scheduler to drop the request: a queued request never starts; a running row is
     * removed within one step and receives no further events.
     */
    public void cancel() {
        cancelled = true;
    }

    public boolean cancelled() {
        return cancelled;
    }
}
