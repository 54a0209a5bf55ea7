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
 * <p><b>A fast stream's reader is woken at most once per {@link #POLL_NANOS}, by the scheduler.</b> Each wake-up
 * costs more than its system call: on a machine of few cores the woken reader (and the client it writes to) take a
 * core the next forward pass computes on. In {@code bench serve --clients 1} on the demo model (2 cores), a
 * reader woken per token, or waking itself on a timer every 2 ms, made the server's forward passes 11–16 % slower
 * than the generator's; woken only for the plan, the first token and the end, they ran level. So the writer wakes
 * the reader for the first token and then for a token only when {@link #POLL_NANOS} have passed since the last
 * wake-up; the tokens between wait in the queue (at most that long while tokens keep coming) and the reader takes
 * them together ({@link #ready()} lets it write them with one flush). Tokens that come slower than that wake it
 * each; the plan, the end, errors and {@link #onIdle()} (the scheduler turns to other work first) wake it at once.
 * The wake-up comes from the scheduler thread between forward passes rather than from a timer in the middle of one
 * (whose firing wakes a timer thread and then the reader's carrier, each taking a core from the pass); measured, the
 * server's passes went from 11–16 % to 4–10 % slower than the generator's (docs/serving.md).
 */
public final class RowEventQueue implements RowEvents {
    /** The least time between two wake-ups a fast stream's tokens cause; 0 wakes the reader for every token. */
    static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(
            Long.getLong("panamax.serve.streamPollMicros", 2_000));

    private final long pollNanos;
    private final ConcurrentLinkedQueue<Object> events = new ConcurrentLinkedQueue<>();
    /** The reader while it is parked (or about to park) waiting for events; null otherwise. */
    private volatile Thread waiter;
    private long lastWake; // writer only: when a token last woke the reader, 0 before the first token
    private boolean held;  // writer only: whether tokens were added since the reader was last woken

    /** A queue whose fast streams wake their reader at most once per {@link #POLL_NANOS}. */
    public RowEventQueue() {
        this(POLL_NANOS);
    }

    /** A queue whose fast streams wake their reader at most once per {@code pollNanos} (0: for every token). */
    RowEventQueue(long pollNanos) {
        this.pollNanos = pollNanos;
    }

    @Override
    public void onAdmitted(RequestPlan plan) {
        add(plan, true);
    }

    @Override
    public void onToken(TokenEvent token) {
        long now = System.nanoTime();
        boolean wake = lastWake == 0 || now - lastWake >= pollNanos;
        if (wake) lastWake = now;
        add(token, wake);
    }

    @Override
    public void onFinish(Completion completion) {
        add(completion, true);
    }

    @Override
    public void onError(RuntimeException error) {
        add(error, true);
    }

    /** The scheduler turns to other work before this row's next token: the tokens held back go to the reader now. */
    @Override
    public void onIdle() {
        if (held) wake();
    }

    private void add(Object event, boolean wake) {
        events.add(event);
        if (wake) wake(); else held = true;
    }

    // The queue is written before the waiter is read, and the reader announces itself before it reads the queue
    // again, so an event either reaches a reader's check of the queue or finds the reader announced.
    private void wake() {
        held = false;
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
        while (true) {
            if (Thread.interrupted()) throw new InterruptedException();
            Object e = events.poll();
            if (e != null) return e;
            long left = timed ? deadline - System.nanoTime() : Long.MAX_VALUE;
            if (left <= 0) return null;
            waiter = Thread.currentThread();
            e = events.poll(); // again, now that a writer sees the waiter
            if (e != null) {
                waiter = null;
                return e;
            }
            if (timed) LockSupport.parkNanos(this, left); else LockSupport.park(this);
            waiter = null;
        }
    }
}
