package panamax.api.tensor;

import java.util.Map;
import java.util.Optional;

/**
 * Options a user passes when a backend is created.
 *
 * @param threads  worker threads for kernels; 0 means all available cores
 * @param device   a device name from {@link BackendCapabilities#devices()}, or empty for the default
 * @param extra    backend-specific settings, e.g. {@code library=/path/libmlxc.so}
 */
public record BackendOptions(int threads, Optional<String> device, Map<String, String> extra) {
    public BackendOptions {
        if (threads < 0) throw new IllegalArgumentException("threads must be >= 0, found " + threads);
        extra = Map.copyOf(extra);
    }

    public static BackendOptions defaults() {
        return new BackendOptions(0, Optional.empty(), Map.of());
    }
}
