package panamax.backend.java.kernel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * The worker pool of one backend: splits an index range into chunks run on a {@link ForkJoinPool}
 * of {@code threads} workers, the caller running one chunk itself. Calls made from a worker run
 * inline (no nested splitting). Owned by the backend, shut down by {@link #close()}.
 */
public final class Parallel implements AutoCloseable {
    /** Work on the half-open range {@code [from, to)}. */
    @FunctionalInterface
    public interface Range {
        void run(int from, int to);
    }

    private final int threads;
    private final ForkJoinPool pool;

    public Parallel(int threads) {
        this.threads = threads;
        this.pool = threads > 1 ? new ForkJoinPool(threads) : null;
    }

    public int threads() {
        return threads;
    }

    /**
     * Runs {@code body} over {@code [0, n)} in chunks of at least {@code grain} indices, at most
     * {@code 4·threads} chunks; small ranges run on the calling thread.
     */
    public void forRange(int n, int grain, Range body) {
        int chunks = (int) Math.min((long) threads * 4, (n + (long) grain - 1) / Math.max(grain, 1));
        if (pool == null || chunks <= 1 || Thread.currentThread() instanceof ForkJoinWorkerThread w && w.getPool() == pool) {
            if (n > 0) body.run(0, n);
            return;
        }
        List<ForkJoinTask<?>> tasks = new ArrayList<>(chunks - 1);
        for (int c = 1; c < chunks; c++) {
            int from = (int) ((long) n * c / chunks);
            int to = (int) ((long) n * (c + 1) / chunks);
            tasks.add(pool.submit(() -> body.run(from, to)));
        }
        RuntimeException failure = null;
        try {
            body.run(0, (int) ((long) n / chunks));
        } catch (RuntimeException e) {
            failure = e;
        }
        for (ForkJoinTask<?> t : tasks) {
            try {
                t.join();
            } catch (RuntimeException e) {
                if (failure == null) failure = e;
            }
        }
        if (failure != null) throw failure;
    }

    /** Like {@link #forRange} with exactly {@code min(threads, n)} even chunks (bandwidth-bound kernels). */
    public void forEvenSplit(int n, int minPerChunk, Range body) {
        int chunks = Math.min(threads, Math.max(1, n / Math.max(minPerChunk, 1)));
        if (chunks <= 1) {
            forRange(n, Integer.MAX_VALUE, body);
            return;
        }
        forRange(n, (n + chunks - 1) / chunks, body);
    }

    @Override
    public void close() {
        if (pool != null) pool.shutdownNow();
    }
}
