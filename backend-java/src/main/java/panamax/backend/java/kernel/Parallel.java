package panamax.backend.java.kernel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The worker pool of one backend: {@code threads − 1} helper threads plus the calling thread, so
 * exactly {@code threads} threads compute. A range is cut into chunks that the participants claim
 * one by one from a shared counter, which keeps them balanced when other processes steal a core. A
 * range that would make the full {@code 4·threads} chunks is cut into shrinking ones instead, each
 * {@code 1/(2·threads)} of what is left down to the caller's minimum ({@link #guidedBounds}), so a
 * participant that finishes early waits for at most a minimum-sized chunk of another's.
 * Calls made while a range is running on the same thread (from a helper or from the caller inside a
 * chunk) run inline. Owned by the backend, shut down by {@link #close()}.
 *
 * <p>Helpers poll for {@link #SPIN_NANOS} after their last chunk before they park, yielding the core
 * at each poll: a model's ops follow each other microseconds apart, and a parked helper on this
 * virtual machine woke 0.1-0.2 ms late, after the caller had claimed most chunks itself (a 0.22 ms
 * encode took 0.37-0.45 ms, for a hundred calls at a time after any pause). A helper that keeps being
 * picked up late while it polls backs off to parking at once ({@link #LATE_PICKUP_NANOS}): on
 * oversubscribed cores a polling thread takes a share of one from the caller and other processes.
 * Measured against a fork-join pool (which parks idle workers at once), A/B on the 2-core VM: the demo model's 2 000-token generate 390-414 → 453-529 tok/s; 125M q8
 * decode (32 steps) batch 1 0.46-0.49 → 0.39 s, batch 8 1.23-1.35 → 1.21-1.28 s; with one {@code yes}
 * process on the two cores, batch 1 0.60-0.67 → 0.63-0.67 and batch 8 1.72-1.73 → 1.68-1.89 with three
 * strikes (without
 * the back-off, 1.89-2.00). Polling by {@link Thread#onSpinWait} instead of {@link Thread#yield} starved
 * the JIT of a core during warm-up (the affine-cache generate got slower).
 */
public final class Parallel implements AutoCloseable {
    /** Work on the half-open range {@code [from, to)}. */
    @FunctionalInterface
    public interface Range {
        void run(int from, int to);
    }

    /** How long an idle helper polls for the next range before it parks. */
    static final long SPIN_NANOS = 200_000;
    /**
     * A polling helper that picked a range up later than this was kept off its core by another thread.
     * After {@link #STRIKES} such pickups in a row the cores count as oversubscribed (a polling thread would
     * keep taking a share of one from the caller or other processes), and the helper parks at once for its
     * next {@link #BACKOFF_PERIODS} idle periods.
     */
    static final long LATE_PICKUP_NANOS = 50_000;
    static final int BACKOFF_PERIODS = 64;
    /**
     * Late pickups in a row that count as oversubscription. This VM's jitter alone makes short runs of them:
     * with one strike the bench's medians halved again, with three one case in six read half its best (the
     * back-off's 64 parked periods), with six none of six. Under a one-process load six backed
     * off as well as three (125M q8 batch 8: 1.73-1.81 against 1.72-1.80 s; the fork-join pool 1.67-1.86).
     */
    static final int STRIKES = 6;
    /** How long a helper stays parked without work before its thread ends. */
    static final long IDLE_EXIT_NANOS = 30_000_000_000L;

    /** How a range that would make the full {@code 4·threads} chunks is cut ({@link #CHUNKING}). */
    enum Chunking {
        /** Each chunk {@code 1/(2·threads)} of what is left, down to the minimum ({@link #guidedBounds}). */
        GUIDED,
        /** Half the chunks share three quarters of the range, the other half the last quarter ({@link #chunkStart}). */
        QUARTERS,
        /** Equal chunks. */
        EVEN
    }

    /** How full ranges are cut: {@code -Dpanamax.parallel.chunks=guided|quarters|even} picks one for A/B runs. */
    static final Chunking CHUNKING = chunking(System.getProperty("panamax.parallel.chunks", "guided"));

    static Chunking chunking(String name) {
        try {
            return Chunking.valueOf(name.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("panamax.parallel.chunks: expected guided, quarters or even, found '" + name + "'");
        }
    }

    private static final ThreadLocal<Boolean> INSIDE = ThreadLocal.withInitial(() -> Boolean.FALSE);

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final int threads;
    /** Names this pool's helper threads: {@code panamax-java-backend-<pool>-<index>}. */
    private final int pool = POOLS.incrementAndGet();
    private final List<Helper> helpers = new ArrayList<>();
    /** The newest range's participant; helpers run each one they see at most once. */
    private volatile Job job;
    private volatile boolean closed;
    private long generation;

    private record Job(Runnable participant, long generation, long published) {
    }

    public Parallel(int threads) {
        this.threads = threads;
        for (int i = 1; i < threads; i++) helpers.add(new Helper(i));
    }

    /**
     * One helper thread: runs each new job's participant, polls for the next, parks when none came for
     * a while, and ends after {@link #IDLE_EXIT_NANOS} parked (a backend left open costs no thread); the
     * next {@link #publish} starts it again.
     */
    private final class Helper implements Runnable {
        private final int index;
        private Thread thread; // guarded by Parallel.this
        private boolean alive; // guarded by Parallel.this
        volatile boolean parked;

        Helper(int index) {
            this.index = index;
        }

        /** Starts this helper's thread unless it runs. Called holding Parallel.this. */
        void ensureRunning() {
            if (alive) return;
            alive = true;
            thread = Thread.ofPlatform().daemon().name(threadNamePrefix() + index).unstarted(this);
            thread.start();
        }

        @Override
        public void run() {
            long seen = 0;
            long idleSince = System.nanoTime();
            boolean polling = false;
            int backoff = 0;
            int strikes = 0;
            while (!closed) {
                Job j = job;
                if (j != null && j.generation() != seen) {
                    seen = j.generation();
                    if (polling) { // picked up while polling: late means another thread held this core
                        strikes = System.nanoTime() - j.published() > LATE_PICKUP_NANOS ? strikes + 1 : 0;
                        if (strikes >= STRIKES) {
                            backoff = BACKOFF_PERIODS;
                            strikes = 0;
                        }
                    }
                    polling = false;
                    j.participant().run();
                    idleSince = System.nanoTime();
                    if (backoff > 0) {
                        backoff--;
                        idleSince -= SPIN_NANOS; // no polling this period
                    }
                } else if (System.nanoTime() - idleSince < SPIN_NANOS) {
                    polling = true;
                    Thread.yield(); // polls, but lets a thread waiting for this core run first (the JIT's above all)
                } else if (System.nanoTime() - idleSince < IDLE_EXIT_NANOS) {
                    polling = false;
                    parked = true;
                    Job again = job; // re-read after announcing: a job published before this read is not missed
                    if ((again == null || again.generation() == seen) && !closed) LockSupport.parkNanos(this, IDLE_EXIT_NANOS);
                    parked = false;
                } else {
                    synchronized (Parallel.this) {
                        Job again = job;
                        if (again == null || again.generation() == seen) { // nothing new: end; publish starts a new thread
                            alive = false;
                            return;
                        }
                    }
                }
            }
        }
    }

    /** The name this pool's helper threads start with (then their index, from 1). */
    public String threadNamePrefix() {
        return "panamax-java-backend-" + pool + "-";
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
        run(n, grain, Math.max(grain, 1), state, body);
    }

    /** {@link #forRange} in chunks of at least {@code grain}, shrinking ({@link #CHUNKING}) where the smallest still holds {@code minChunk}. */
    private <S> void run(int n, int grain, int minChunk, Supplier<S> state, StatefulRange<S> body) {
        Warmup.realWork(); // the warm-up gives way to the first real op
        int even = (int) Math.min((long) threads * 4, (n + (long) grain - 1) / Math.max(grain, 1));
        if (helpers.isEmpty() || even <= 1 || INSIDE.get()) {
            if (n > 0) body.run(0, n, state.get());
            return;
        }
        boolean full = even == threads * 4 && n / (2L * even) >= minChunk;
        // chunk c is [bounds[c], bounds[c + 1]): the cut depends on n alone, never on which thread claims what
        int[] bounds = full && CHUNKING == Chunking.GUIDED ? guidedBounds(n, threads, minChunk) : null;
        boolean quarters = full && CHUNKING == Chunking.QUARTERS;
        int chunks = bounds == null ? even : bounds.length - 1;
        AtomicInteger next = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable participant = () -> {
            boolean outer = INSIDE.get();
            INSIDE.set(Boolean.TRUE);
            try {
                S mine = null;
                for (int c; (c = next.getAndIncrement()) < chunks; ) {
                    int from = bounds != null ? bounds[c] : chunkStart(n, c, chunks, quarters);
                    int to = bounds != null ? bounds[c + 1] : chunkStart(n, c + 1, chunks, quarters);
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
        publish(participant);
        participant.run();
        // Wait for the chunks helpers claimed, not for the helpers: one that wakes late (another
        // process holds its core) finds nothing left and never touches the range, so the caller
        // need not pay its wake-up latency (measured at up to milliseconds per op under load). A job
        // replaced by a newer one before a helper saw it (two callers at once) is run by its caller alone.
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
        forEvenSplit(n, minPerChunk, () -> null, (from, to, none) -> body.run(from, to));
    }

    /**
     * {@link #forEvenSplit(int, int, Range)} with one {@code state} per participating thread, as
     * {@link #forRange(int, int, Supplier, StatefulRange)}.
     */
    public <S> void forEvenSplit(int n, int minPerChunk, Supplier<S> state, StatefulRange<S> body) {
        run(n, Math.max(minPerChunk, (n + 4 * threads - 1) / (4 * threads)), Math.max(minPerChunk, 1), state, body);
    }

    /**
     * The chunks of a full range {@code [0, n)} as their bounds (chunk c is {@code [b[c], b[c + 1])}): each one
     * {@code 1/(2·threads)} of what is left (rounded up), never under {@code minChunk}, the last one whatever remains. The
     * participants claim them in order, so they start on large chunks and end on chunks of about {@code minChunk}: one
     * that finishes first waits for at most such a chunk of another's. With two threads and {@code minChunk} 1, 192
     * indices (a mixture-of-experts step's 16 expert projections in fours of tiles) make 16 chunks, from 48 down to four of one.
     */
    static int[] guidedBounds(int n, int threads, int minChunk) {
        int min = Math.max(1, minChunk);
        int[] b = new int[16];
        int count = 0;
        for (int at = 0; at < n; ) {
            if (count + 2 > b.length) b = Arrays.copyOf(b, b.length * 2);
            b[count++] = at;
            int left = n - at;
            int size = Math.max(min, (int) ((left + 2L * threads - 1) / (2L * threads)));
            at = left - size < min ? n : at + size; // no last chunk under the minimum
        }
        b[count++] = n;
        return Arrays.copyOf(b, count);
    }

    /**
     * Where chunk {@code c} of {@code chunks} starts in {@code [0, n)}: equal chunks, or ({@link Chunking#QUARTERS}) tapered ones, the first half of
     * the chunks sharing three quarters of the range and the second half the last quarter. Claimed in order, the
     * participants end on small chunks, so the one that finishes first waits for at most a small one of the other's
     * (docs/backend-java.md, "Full ranges end on small chunks", has the A/B).
     */
    static int chunkStart(int n, int c, int chunks, boolean tapered) {
        if (!tapered) return (int) ((long) n * c / chunks);
        int half = chunks / 2;
        long threeQuarters = (long) n * 3 / 4;
        if (c <= half) return (int) (threeQuarters * c / half);
        return (int) (threeQuarters + (n - threeQuarters) * (c - half) / (chunks - half));
    }

    /** Hands {@code participant} to the helpers, waking the parked ones. */
    private synchronized void publish(Runnable participant) {
        job = new Job(participant, ++generation, System.nanoTime());
        for (Helper h : helpers) {
            h.ensureRunning();
            if (h.parked) LockSupport.unpark(h.thread);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (Helper h : helpers) {
            if (h.alive) LockSupport.unpark(h.thread);
        }
    }
}
