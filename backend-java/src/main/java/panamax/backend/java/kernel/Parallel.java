package panamax.backend.java.kernel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The worker pool of one backend: {@code threads − 1} daemon workers plus the calling thread, so
 * exactly {@code threads} threads compute. A range is cut into chunks that the participants claim
 * one by one from a shared counter, which keeps them balanced when other processes steal a core.
 * Calls made while a range is running on the same thread (from a worker or from the caller inside
 * a chunk) run inline. Owned by the backend, shut down by {@link #close()}.
 *
 * <p>Workers spin for {@link #SPIN_NANOS} after each range before they park: a decode step is a
 * string of parallel ops a few to a few hundred microseconds apart, and waking a parked thread
 * costs 10–50 µs on this class of machine (a fork-join pool cost a 40 µs range 20 µs on average).
 * Helping is optional: the caller claims chunks too and waits only for claimed chunks, so a
 * worker that is late, busy with another caller's range, or gone never blocks a range.
 */
public final class Parallel implements AutoCloseable {
    /** Work on the half-open range {@code [from, to)}. */
    @FunctionalInterface
    public interface Range {
        void run(int from, int to);
    }

    private static final ThreadLocal<Boolean> INSIDE = ThreadLocal.withInitial(() -> Boolean.FALSE);

    /** How long an idle worker keeps polling for the next range before it parks. */
    static final long SPIN_NANOS = 200_000;
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final int threads;
    private final Worker[] workers;
    /** The latest range's participant; published by the volatile write of {@link #epoch}. */
    private Runnable job;
    private volatile long epoch;
    private volatile boolean closed;

    public Parallel(int threads) {
        this.threads = threads;
        this.workers = new Worker[Math.max(0, threads - 1)];
        int id = POOLS.incrementAndGet();
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker();
            Thread t = Thread.ofPlatform().daemon().name("panamax-worker-" + id + "-" + (i + 1)).unstarted(workers[i]);
            workers[i].thread = t;
            t.start();
        }
    }

    public int threads() {
        return threads;
    }

    /**
     * Runs {@code body} over {@code [0, n)} in chunks of at least {@code grain} indices, at most
     * {@code 4·threads} chunks; small ranges run on the calling thread.
     */
    public void forRange(int n, int grain, Range body) {
        Warmup.realWork(); // the warm-up gives way to the first real op
        int chunks = (int) Math.min((long) threads * 4, (n + (long) grain - 1) / Math.max(grain, 1));
        if (workers.length == 0 || chunks <= 1 || INSIDE.get() || closed) {
            if (n > 0) body.run(0, n);
            return;
        }
        AtomicInteger next = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable participant = () -> {
            boolean outer = INSIDE.get();
            INSIDE.set(Boolean.TRUE);
            try {
                for (int c; (c = next.getAndIncrement()) < chunks; ) {
                    int from = (int) ((long) n * c / chunks);
                    int to = (int) ((long) n * (c + 1) / chunks);
                    try {
                        body.run(from, to);
                    } catch (RuntimeException | Error e) {
                        failure.compareAndSet(null, e); // rethrown by the caller, whichever thread ran the chunk
                    } finally {
                        completed.incrementAndGet();
                    }
                }
            } finally {
                INSIDE.set(outer);
            }
        };
        publish(participant);
        participant.run();
        // Wait for the chunks helpers claimed, not for the helpers: one that wakes late (another
        // process holds its core) finds nothing left and never touches the range, so the caller
        // need not pay its wake-up latency (measured at up to milliseconds per op under load).
        for (int spins = 0; completed.get() < chunks; spins++) {
            if (spins < 1 << 12) Thread.onSpinWait();
            else Thread.yield();
        }
        Throwable f = failure.get();
        if (f instanceof RuntimeException e) throw e;
        if (f instanceof Error e) throw e;
    }

    /** Like {@link #forRange} for bandwidth-bound kernels: chunks of at least {@code minPerChunk}. */
    public void forEvenSplit(int n, int minPerChunk, Range body) {
        forRange(n, Math.max(minPerChunk, (n + 4 * threads - 1) / (4 * threads)), body);
    }

    /** Hands the range to the workers: the spinning ones see the new epoch, parked ones are woken. */
    private void publish(Runnable participant) {
        job = participant;
        epoch = epoch + 1; // only callers write it; a lost increment between two callers still changes it
        for (Worker w : workers) {
            if (w.parked) LockSupport.unpark(w.thread);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Worker w : workers) LockSupport.unpark(w.thread);
    }

    /** Polls the epoch, runs each new range's participant, parks after {@link #SPIN_NANOS} without one. */
    private final class Worker implements Runnable {
        Thread thread;
        /** Set before parking, so that a publisher knows to unpark (both sides volatile: one sees the other). */
        volatile boolean parked;

        @Override
        public void run() {
            long seen = epoch;
            while (!closed) {
                long idleSince = System.nanoTime();
                long e;
                while ((e = epoch) == seen && !closed) {
                    if (System.nanoTime() - idleSince < SPIN_NANOS) {
                        Thread.onSpinWait();
                        continue;
                    }
                    parked = true;
                    if (epoch == seen && !closed) LockSupport.park(this);
                    parked = false;
                    idleSince = System.nanoTime();
                }
                if (closed) return;
                seen = e;
                Runnable range = job;
                if (range != null) range.run(); // the participant catches what its chunks throw
            }
        }
    }
}
