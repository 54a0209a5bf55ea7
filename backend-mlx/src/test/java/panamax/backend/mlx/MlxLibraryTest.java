package panamax.backend.mlx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.backend.mlx.c.MlxC;

/**
 * The native boundary: without libmlxc the provider says which library is missing and refuses to
 * create a backend (this test then reports itself skipped with that message); with it, a failing
 * mlx-c call becomes an {@link MlxException} carrying MLX's message instead of ending the JVM.
 */
class MlxLibraryTest {
    private final MlxBackendProvider provider = new MlxBackendProvider();

    @Test
    void aMissingLibraryIsReportedByNameAndRefusedAtCreation() {
        Assumptions.assumeTrue(provider.unavailableReason().isPresent(), "libmlxc is present: nothing to refuse");
        assertTrue(provider.unavailableReason().get().contains("libmlxc"), provider.unavailableReason().get());
        UnsupportedCombinationException e = assertThrows(UnsupportedCombinationException.class,
                () -> provider.create(BackendOptions.defaults()));
        assertTrue(e.getMessage().contains("libmlxc"), e.getMessage());
    }

    @Test
    void aFailingMlxCallThrowsMlxsMessageAndTheJvmGoesOn() {
        Assumptions.assumeTrue(provider.unavailableReason().isEmpty(),
                () -> "skipped: backend mlx unavailable: " + provider.unavailableReason().orElse(""));
        try (Backend backend = provider.create(BackendOptions.defaults());
             Tensor six = backend.fromFloats(new float[] {1, 2, 3, 4, 5, 6}, Shape.of(2, 3), DType.F32)) {
            MlxBackend mlx = (MlxBackend) backend;
            MlxException e = assertThrows(MlxException.class, () -> mlx.locked(() -> {
                try (Temps t = new Temps()) {
                    // bypasses the Java-side shape check on purpose: MLX itself must refuse 6 -> 4 elements
                    return Mlx.call("reshape", r -> MlxC.mlx_reshape(r, ((MlxTensor) six).array(t), Mlx.ints(t.arena, 4), 1, mlx.stream()));
                }
            }));
            assertTrue(e.getMessage().contains("reshape"), e.getMessage());
            assertEquals(21f, sum(backend, six), "the backend still works after the failure");
        }
    }

    @Test
    void anUnknownDeviceIsRefusedNamingTheDevicesMlxOffers() {
        Assumptions.assumeTrue(provider.unavailableReason().isEmpty(),
                () -> "skipped: backend mlx unavailable: " + provider.unavailableReason().orElse(""));
        UnsupportedCombinationException e = assertThrows(UnsupportedCombinationException.class,
                () -> provider.create(new BackendOptions(0, java.util.Optional.of("tpu"), java.util.Map.of())));
        assertTrue(e.getMessage().contains("cpu") && e.getMessage().contains("tpu"), e.getMessage());
    }

    private static float sum(Backend backend, Tensor t) {
        try (Tensor flat = backend.ops().reshape(t, Shape.of(6)); Tensor s = backend.ops().sum(flat, 0, false)) {
            return backend.toFloats(s)[0];
        }
    }
}
