package panamax.backend.java;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendCapabilities;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookKernels;

/**
 * Provides the embedded pure-Java backend ({@code java}): always available, CPU only, eager, with
 * every optional kernel family (affine and codebook KV attention, codebook and rotation ops).
 * Instantiation is free; {@link #create} starts the worker pool, owned by the returned backend.
 */
public final class JavaBackendProvider implements BackendProvider {
    static final String ID = "java";

    private static final BackendCapabilities CAPABILITIES = new BackendCapabilities(
            EnumSet.allOf(DType.class), Set.of(2, 3, 4, 5, 6, 8), Set.of(32, 64, 128), false, Set.of("cpu"),
            Set.of(AffineKvKernels.class, CodebookAttentionKernels.class, CodebookKernels.class));

    @Override
    public String id() {
        return ID;
    }

    @Override
    public BackendCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.empty();
    }

    @Override
    public Backend create(BackendOptions options) {
        if (options.device().isPresent() && !options.device().get().equals("cpu")) {
            throw new UnsupportedCombinationException("java backend",
                    java.util.List.of("device: expected cpu, found " + options.device().get()));
        }
        int threads = options.threads() == 0 ? Runtime.getRuntime().availableProcessors() : options.threads();
        String pool = options.extra().getOrDefault("pool.bytes", String.valueOf(256L << 20));
        long poolBytes;
        try {
            poolBytes = Long.parseLong(pool);
        } catch (NumberFormatException e) {
            throw new UnsupportedCombinationException("java backend", java.util.List.of("pool.bytes: expected a byte count, found " + pool));
        }
        return new JavaBackend(CAPABILITIES, threads, poolBytes);
    }
}
