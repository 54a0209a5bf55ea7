/** The embedded default backend: pure Java, off-heap MemorySegments, Vector API kernels on all cores. */
module panamax.backend.java {
    requires panamax.api;
    requires jdk.incubator.vector;
}
