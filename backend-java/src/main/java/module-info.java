/**
 * The embedded default backend: pure Java, off-heap MemorySegments, Vector API kernels on all cores.
 * No package is exported; the backend is reached only through {@link panamax.api.tensor.BackendProvider}.
 */
module panamax.backend.java {
    requires panamax.api;
    requires jdk.incubator.vector;

    provides panamax.api.tensor.BackendProvider with panamax.backend.java.JavaBackendProvider;
}
