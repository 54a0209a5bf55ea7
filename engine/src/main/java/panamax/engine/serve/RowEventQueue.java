package panamax.engine.serve;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands one row's events from the scheduler thread to the thread that answers its caller (an HTTP
 * request, a LangChain4j handler): the scheduler only adds to an unbounded queue (it holds at most
 * the row's tokens) and never waits; the reader takes them in order. An event is a
 * {@link RequestPlan}, a {@link TokenEvent}, a {@link Completion} or a {@link RuntimeException};
 * the last two end the row. Thread-safe for one writer and one reader.
 *
 * <p><b>Fast streams are not woken per token.</b> Waking the reader costs the scheduler thread a system call,
 * and on a machine of few cores the woken reader then takes the core it computes on: in a wall-clock profile
 * of {@code bench serve --clients 1} on the demo model the wake-up was 57 % of the scheduler's per-row work,
 * about 85 µs of a 0.94 ms step, once per row and token. So while a row's tokens come less than
 * {@code 2 × POLL_NANOS} apart, the reader wakes itself every {@link #POLL_NANOS} and takes what has come
 * ({@link #ready()} lets it write them with one flush); a token then reaches it up to that late. The plan,
 * the first token, a row whose tokens come slower, the end and errors wake it at once.
 */
public final class RowEventQueue implements RowEvents {
    /** How often a reader of a fast stream wakes to take its tokens. */
    static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(
            Long.getLong("panamax.serve.streamPollMicros", 2_000));

    private final ConcurrentLinkedQueue<Object> events = new ConcurrentLinkedQueue<>();
    /** The reader while it is parked (or about to park) waiting for events; null otherwise. */
    private volatile Thread waiter;
    /** Whether the reader wakes itself (its tokens come fast), so a token need not wake it. */
    private volatile boolean polling;
    private long lastToken; // reader only: when it took the previous token, 0 before the first

    @Override
    public void onAdmitted(RequestPlan plan) {
        add(plan, true);
    }

    @Override
    public void onToken(TokenEvent token) {
        add(token, !polling);
    }

    @Override
    public void onFinish(Completion completion) {
        add(completion, true);
    }

    @Override
    public void onError(RuntimeException error) {
        add(error, true);
    }

    // The queue is written before polling and waiter are read, and the reader writes them before it reads the
    // queue, so an event either reaches a reader's check of the queue or finds the reader announced.
    private void add(Object event, boolean wake) {
        events.add(event);
        if (!wake) return;
        Thread w = waiter;
        if (w != null) LockSupport.unpark(w);
    }

    /** The next event, waiting at most {@code millis}; null when none came. */
    public Object next(long millis) throws InterruptedException {
        return next(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis), true);
    }

    /** The next event, waiting as long as it takes. */
    public Object take() throws InterruptedException {
        return next(0, false);
    }

    /** Whether an event is waiting, so that {@link #next} returns at once (a writer may batch what it writes). */
    public boolean ready() {
        return !events.isEmpty();
    }

    private Object next(long deadline, boolean timed) throws InterruptedException {
        boolean caughtUp = false; // whether the reader found the queue empty in this call
        while (true) {
            if (Thread.interrupted()) throw new InterruptedException();
            Object e = events.poll();
            if (e != null) return taken(e, caughtUp);
            if (caughtUp && polling && System.nanoTime() - lastToken >= 2 * POLL_NANOS) {
                polling = false; // woke to nothing: the tokens slowed down, so each wakes the reader again
                continue;
            }
            caughtUp = true;
            long left = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            if (left <= 0) return null;
            waiter = Thread.currentThread();
            e = events.poll(); // again, now that a writer sees the waiter
            if (e != null) {
                waiter = null;
                return taken(e, true);
            }
            LockSupport.parkNanos(this, polling ? Math.min(left, POLL_NANOS) : left);
            waiter = null;
        }
    }

    /**
     * Notes when a token was taken; one the reader waited for sets whether it polls: tokens less than two poll
     * periods apart. Tokens already waiting (a backlog, or several from one speculative step) change nothing.
     */
    private Object taken(Object e, boolean waitedFor) {
        if (e instanceof TokenEvent) {
            long now = System.nanoTime();
            if (waitedFor) polling = lastToken != 0 && now - lastToken < 2 * POLL_NANOS;
            lastToken = now;
        } else {
            polling = false;
        }
        return e;
    }
}
