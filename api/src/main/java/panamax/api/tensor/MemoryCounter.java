package panamax.api.tensor;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Active, peak and mapped byte counters that a backend keeps for {@link Backend#memoryStats()}:
 * backends call {@link #allocated}/{@link #freed} as tensor storage comes and goes and
 * {@link #mapped}/{@link #unmapped} for file-backed weights. Thread-safe; owned by its backend.
 */
public final class MemoryCounter {
    private final AtomicLong active = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong mapped = new AtomicLong();

    /** {@code bytes} more are held; raises the peak when the total passes it. */
    public void allocated(long bytes) {
        long now = active.addAndGet(bytes);
        peak.accumulateAndGet(now, Math::max);
    }

    /** {@code bytes} fewer are held. */
    public void freed(long bytes) {
        active.addAndGet(-bytes);
    }

    /** {@code bytes} of a file are mapped (not counted as active). */
    public void mapped(long bytes) {
        mapped.addAndGet(bytes);
    }

    /** {@code bytes} of a file are unmapped. */
    public void unmapped(long bytes) {
        mapped.addAndGet(-bytes);
    }

    /** Starts a new peak from what is held now. */
    public void resetPeak() {
        peak.set(active.get());
    }

    /** The counters now. */
    public MemoryStats stats() {
        return new MemoryStats(active.get(), peak.get(), mapped.get());
    }
}
