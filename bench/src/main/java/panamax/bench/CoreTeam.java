package panamax.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/**
 * A fixed team of one worker per core for the reference benchmarks, so they split work the way
 * the backend does: part 0 runs on the calling thread, parts 1..n-1 on parked platform threads.
 * Owns its threads; {@link #close} stops them. Not reentrant: one {@link #run} at a time.
 */
final class CoreTeam implements AutoCloseable {
    private final int size;
    private final ExecutorService workers;

    CoreTeam(int size) {
        if (size < 1) throw new IllegalArgumentException("team size must be >= 1, found " + size);
        this.size = size;
        this.workers = Executors.newFixedThreadPool(Math.max(1, size - 1), r -> {
            Thread t = new Thread(r, "bench-core");
            t.setDaemon(true);
            return t;
        });
    }

    /** A team as large as the number of cores the JVM sees. */
    static CoreTeam allCores() {
        return new CoreTeam(Runtime.getRuntime().availableProcessors());
    }

    int size() {
        return size;
    }

    /** Runs {@code part} for 0..size-1 in parallel and returns when all have finished; rethrows the first failure. */
    void run(IntConsumer part) {
        List<Future<?>> pending = new ArrayList<>(size - 1);
        for (int i = 1; i < size; i++) {
            int index = i;
            pending.add(workers.submit(() -> part.accept(index)));
        }
        part.accept(0);
        try {
            for (Future<?> f : pending) f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the core team", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a core team part failed", e.getCause());
        }
    }

    @Override
    public void close() {
        workers.shutdownNow();
    }
}
