package panamax.api.tensor;

import java.util.Optional;

/**
 * A tensor backend, found with {@link java.util.ServiceLoader}. Cheap to instantiate: expensive
 * work (loading native libraries, starting thread pools) happens in {@link #create}.
 */
public interface BackendProvider {
    /** Stable id users select with {@code --backend}, e.g. {@code java}, {@code mlx}. */
    String id();

    /** What the backend offers; read by the planner before anything is created. */
    BackendCapabilities capabilities();

    /**
     * Why this backend cannot run on this machine (e.g. a missing native library, naming it), or
     * empty when it can. The planner skips an unavailable backend and records this reason.
     */
    Optional<String> unavailableReason();

    /**
     * Creates a backend instance owned by the caller, who closes it.
     *
     * @throws panamax.api.error.UnsupportedCombinationException when unavailable or the options are not supported
     */
    Backend create(BackendOptions options);
}
