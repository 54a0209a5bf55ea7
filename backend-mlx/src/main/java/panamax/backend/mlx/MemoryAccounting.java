package panamax.backend.mlx;

import java.util.concurrent.atomic.AtomicLong;
import panamax.api.tensor.MemoryStats;

/**
 * Active, peak and mapped bytes of one MLX backend, counted per {@link Root}: the logical size
 * of every array a tensor handle keeps alive, from creation (evaluated or not) until its last
 * handle closes. MLX's own allocator (caches, graph intermediates) is not included. Thread-safe.
 */
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
