package panamax.backend.mlx;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendCapabilities;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;

/**
 * Provides the MLX backend ({@code mlx}) when libmlxc can be loaded (see {@link MlxLibrary} for
 * where it is looked up); otherwise {@link #unavailableReason()} says why and the planner skips
 * it. Instantiation is free; the library is loaded on the first question that needs it.
 * {@link #create} honours {@code device} ({@code cpu} or, where MLX has one, {@code gpu}) and
 * {@code extra library=PATH}, which sets the library path when none was loaded yet. Without a
 * device option the device comes from {@link #defaultDevice()}.
 */
public final class MlxBackendProvider implements BackendProvider {
    static final String ID = "mlx";
    static final String DEVICE_PROPERTY = "panamax.mlx.device";

    /** What any MLX build offers; the devices are narrowed to the loaded library's once it loads. */
    private static final BackendCapabilities DECLARED = new BackendCapabilities(
            EnumSet.allOf(DType.class), QuantOps.BITS, QuantOps.GROUP_SIZES, true, Set.of("cpu", "gpu"));
    private static volatile BackendCapabilities loaded;

    @Override
    public String id() {
        return ID;
    }

    /** With libmlxc loaded, the devices it really has (a CPU-only build: {@code [cpu]}); else what MLX can offer. */
    @Override
    public BackendCapabilities capabilities() {
        if (loaded != null) return loaded;
        if (MlxLibrary.load().isPresent()) return DECLARED;
        Set<String> devices;
        Mlx.LOCK.lock();
        try {
            devices = MlxDevices.available();
        } finally {
            Mlx.LOCK.unlock();
        }
        loaded = new BackendCapabilities(DECLARED.storageTypes(), DECLARED.quantizedBits(), DECLARED.groupSizes(), true, devices);
        return loaded;
    }

    @Override
    public Optional<String> unavailableReason() {
        return MlxLibrary.load();
    }

    /** {@code -D}{@value #DEVICE_PROPERTY} (the CLI's {@code --mlx-device}), else {@code PANAMAX_MLX_DEVICE}, else cpu. */
    static String defaultDevice() {
        String device = System.getProperty(DEVICE_PROPERTY, "");
        if (device.isBlank()) device = System.getenv().getOrDefault("PANAMAX_MLX_DEVICE", "");
        return device.isBlank() ? "cpu" : device;
    }

    @Override
    public Backend create(BackendOptions options) {
        String library = options.extra().get("library");
        if (library != null && System.getProperty(MlxLibrary.PROPERTY, "").isBlank()) {
            System.setProperty(MlxLibrary.PROPERTY, library);
        }
        Optional<String> missing = MlxLibrary.load();
        if (missing.isPresent()) throw new UnsupportedCombinationException("mlx backend", List.of(missing.get()));
        String device = options.device().orElseGet(MlxBackendProvider::defaultDevice);
        return new MlxBackend(capabilities(), device);
    }
}
