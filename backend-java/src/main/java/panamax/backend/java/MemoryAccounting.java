package panamax.backend.java;

import java.util.concurrent.atomic.AtomicLong;
import panamax.api.tensor.MemoryStats;

/** Active, peak and mapped byte counters of one backend. Thread-safe. */
final class MemoryAccounting {
    private final AtomicLong active = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong mapped = new AtomicLong();

    void allocated(long bytes) {
        long now = active.addAndGet(bytes);
        peak.accumulateAndGet(now, Math::max);
    }

    void freed(long bytes) {
        active.addAndGet(-bytes);
    }

    void mapped(long bytes) {
        mapped.addAndGet(bytes);
    }

    void unmapped(long bytes) {
        mapped.addAndGet(-bytes);
    }

    void resetPeak() {
        peak.set(active.get());
    }

    MemoryStats stats() {
        return new MemoryStats(active.get(), peak.get(), mapped.get());
    }
}
