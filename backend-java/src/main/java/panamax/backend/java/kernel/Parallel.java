package panamax.backend.java.kernel;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The worker pool of one backend: {@code threads − 1} fork-join workers plus the calling thread,
 * so exactly {@code threads} threads compute. A range is cut into chunks that the participants
 * claim one by one from a shared counter, which keeps them balanced when other processes steal a
 * core. Calls made while a range is running on the same thread (from a worker or from the caller
 * inside a chunk) run inline. Owned by the backend, shut down by {@link #close()}.
 */
public final class Parallel implements AutoCloseable {
    /** Work on the half-open range {@code [from, to)}. */
    @FunctionalInterface
    public interface Range {
        void run(int from, int to);
    }

    private static final ThreadLocal<Boolean> INSIDE = ThreadLocal.withInitial(() -> Boolean.FALSE);

    private final int threads;
    private final ForkJoinPool pool;

    public Parallel(int threads) {
        this.threads = threads;
        this.pool = threads > 1 ? new ForkJoinPool(threads - 1) : null;
    }

    public int threads() {
        return threads;
    }

    /** Work on {@code [from, to)} with the state its thread made for this call ({@link #forRange(int, int, Supplier, StatefulRange)}). */
    @FunctionalInterface
    public interface StatefulRange<S> {
        void run(int from, int to, S state);
    }

    /**
     * Runs {@code body} over {@code [0, n)} in chunks of at least {@code grain} indices, at most
     * {@code 4·threads} chunks; small ranges run on the calling thread.
     */
    public void forRange(int n, int grain, Range body) {
        forRange(n, grain, () -> null, (from, to, none) -> body.run(from, to));
    }

    /**
     * {@link #forRange(int, int, Range)} whose participating threads each make one {@code state} (buffers,
     * kernels), on claiming their first chunk, and hand it to every chunk they run: made per chunk, a
     * call's scratch was allocated and zeroed up to 4·threads times (attention at 8k tokens: over 1 MiB per step).
     */
    public <S> void forRange(int n, int grain, Supplier<S> state, StatefulRange<S> body) {
        Warmup.realWork(); // the warm-up gives way to the first real op
        int chunks = (int) Math.min((long) threads * 4, (n + (long) grain - 1) / Math.max(grain, 1));
        if (pool == null || chunks <= 1 || INSIDE.get()) {
            if (n > 0) body.run(0, n, state.get());
            return;
        }
        AtomicInteger next = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable participant = () -> {
            boolean outer = INSIDE.get();
            INSIDE.set(Boolean.TRUE);
            try {
                S mine = null;
                for (int c; (c = next.getAndIncrement()) < chunks; ) {
                    int from = (int) ((long) n * c / chunks);
                    int to = (int) ((long) n * (c + 1) / chunks);
                    try {
                        if (mine == null) mine = state.get();
                        body.run(from, to, mine);
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
        int helpers = Math.min(threads - 1, chunks - 1);
        for (int i = 0; i < helpers; i++) pool.execute(participant);
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

    @Override
    public void close() {
        if (pool != null) pool.shutdownNow();
    }
}
