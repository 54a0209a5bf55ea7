package panamax.backend.mlx;

import panamax.api.tensor.MemoryCounter;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import panamax.api.tensor.DType;

/**
 * The storage that tensor handles share: one owned MLX array of fixed shape and dtype, which the
 * in-place writes of {@code Ops} replace by a new (lazy) array, so every view of the root sees the
 * write. Reference-counted by its {@link MlxTensor} handles; the last release frees the MLX array
 * and returns its bytes to the accounting. Replacement and release run under {@link Mlx#LOCK}.
 */
final class Root {
    final int[] dims; // row-major, as MLX reports the array's shape
    final DType dtype;
    final long bytes;
    private final boolean mapped;
    private final MemoryCounter accounting;
    private final AtomicInteger refs = new AtomicInteger(1);
    private MemorySegment array;
    /** A cached f32 copy of a mapped 16-bit root (weights), made on first use by matmul; or null. */
    private MemorySegment widened;

    /** Takes ownership of {@code array}; one reference, held by the first handle. */
    Root(MemorySegment array, int[] dims, DType dtype, MemoryCounter accounting, boolean mapped) {
        this.array = array;
        this.dims = dims;
        this.dtype = dtype;
        this.accounting = accounting;
        this.mapped = mapped;
        long n = 1;
        for (int d : dims) n *= d;
        this.bytes = n * dtype.byteSize();
        if (mapped) accounting.mapped(bytes);
        else accounting.allocated(bytes);
    }

    /** The current array, borrowed: valid until the next {@link #replace} or the last release. */
    MemorySegment array() {
        return array;
    }

    /** Whether this root references caller memory in place (mapped weights); such roots are never written. */
    boolean isMapped() {
        return mapped;
    }

    /**
     * The root's values as f32, computed once and kept (counted as active bytes) while the root
     * lives: a matmul on bf16 weights then streams f32 through BLAS instead of converting every
     * weight on every step. Call under {@link Mlx#LOCK}, for floating roots.
     */
    MemorySegment widened(MemorySegment stream) {
        if (widened == null) {
            MemorySegment source = array;
            widened = Mlx.call("astype", r -> panamax.backend.mlx.c.MlxC.mlx_astype(r, source, Mlx.code(DType.F32), stream));
            accounting.allocated(bytes / dtype.byteSize() * 4);
        }
        return widened;
    }

    private void dropWidened() {
        if (widened != null) {
            Mlx.free(widened);
            widened = null;
            accounting.freed(bytes / dtype.byteSize() * 4);
        }
    }

    /** Installs {@code next} (owned, same shape and dtype) as the root's array, freeing the old one. */
    void replace(MemorySegment next) {
        MemorySegment old = array;
        array = next;
        Mlx.free(old);
        dropWidened();
    }

    void retain() {
        refs.incrementAndGet();
    }

    void release() {
        if (refs.decrementAndGet() == 0) {
            Mlx.LOCK.lock();
            try {
                Mlx.free(array);
                dropWidened();
            } finally {
                Mlx.LOCK.unlock();
            }
            if (mapped) accounting.unmapped(bytes);
            else accounting.freed(bytes);
        }
    }
}
