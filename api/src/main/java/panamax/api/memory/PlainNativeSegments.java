package panamax.api.memory;

import java.lang.foreign.MemorySegment;

/**
 * Native memory under one segment implementation. A memory-mapped file's segment is its own class
 * in the JDK; where one reaches Vector API loads next to ordinary native segments, C2 compiles the
 * shared load and store paths for both, and every kernel slows down (the java backend's q8 weight
 * matrix-vector products on two cores: 0.62 -> 0.80 ms per [8192, 2048] once a mapped matrix had
 * gone through them). Stateless.
 *
 * <p>Needs native access for {@code panamax.api} (the launcher grants it); without it the segment is
 * returned unchanged.
 *
 * @since 0.4
 */
public final class PlainNativeSegments {
    private PlainNativeSegments() {
    }

    /**
     * {@code segment} itself unless it is memory-mapped; then the same memory, size, scope (so the
     * mapping's lifetime still guards every access) and read-only mode as a plain native segment.
     */
    public static MemorySegment of(MemorySegment segment) {
        if (!segment.isMapped()) return segment;
        try {
            return segment.reinterpret(segment.byteSize());
        } catch (IllegalCallerException e) {
            return segment; // native access denied: slower kernels, same results
        }
    }
}
