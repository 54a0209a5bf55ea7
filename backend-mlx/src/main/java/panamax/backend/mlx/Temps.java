package panamax.backend.mlx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The temporaries of one op: intermediate MLX arrays (freed on close; MLX keeps what the lazy
 * graph still needs alive by its own reference counts) and a confined arena for argument buffers.
 * Used by one thread, in try-with-resources.
 */
final class Temps implements AutoCloseable {
    final Arena arena = Arena.ofConfined();
    private final List<MemorySegment> arrays = new ArrayList<>();

    /** Takes ownership of {@code array} until close; returns it. */
    MemorySegment own(MemorySegment array) {
        arrays.add(array);
        return array;
    }

    /** Runs an mlx-c call whose result is a temporary. */
    MemorySegment call(String what, Mlx.Call call) {
        return own(Mlx.call(what, call));
    }

    @Override
    public void close() {
        for (MemorySegment a : arrays) Mlx.free(a);
        arrays.clear();
        arena.close();
    }
}
