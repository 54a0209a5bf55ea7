package panamax.backend.mlx;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds and loads {@code libmlxc} once per JVM: the path in system property
 * {@value #PROPERTY}, else the one in environment variable {@value #ENV}, else the library named
 * {@code mlxc} on {@code java.library.path}. Loading installs {@link MlxErrors}'s handler before
 * any other mlx-c call, because mlx-c's default handler calls {@code exit()}. Thread-safe.
 */
final class MlxLibrary {
    static final String PROPERTY = "panamax.mlx.library";
    static final String ENV = "PANAMAX_MLX_LIBRARY";

    private static Optional<String> failure;

    private MlxLibrary() {
    }

    /** Empty when libmlxc is loaded (loading it now if needed), else why it could not be loaded. */
    static synchronized Optional<String> load() {
        if (failure == null) failure = tryLoad();
        return failure;
    }

    private static Optional<String> tryLoad() {
        String configured = System.getProperty(PROPERTY, "");
        String source = "-D" + PROPERTY;
        if (configured.isBlank()) {
            configured = System.getenv().getOrDefault(ENV, "");
            source = ENV;
        }
        try {
            if (!configured.isBlank()) {
                Path path = Path.of(configured).toAbsolutePath();
                if (!Files.isRegularFile(path)) {
                    return Optional.of("libmlxc not found: " + source + " names " + path + ", which is not a file");
                }
                System.load(path.toString());
            } else {
                System.loadLibrary("mlxc");
            }
        } catch (UnsatisfiedLinkError | SecurityException e) {
            return Optional.of(configured.isBlank()
                    ? "libmlxc not found on java.library.path (" + System.getProperty("java.library.path")
                            + "); set -D" + PROPERTY + "=PATH or " + ENV + "=PATH to libmlxc (.so/.dylib)"
                    : "libmlxc at " + configured + " (from " + source + ") could not be loaded: " + e.getMessage());
        }
        try {
            MlxErrors.install();
        } catch (RuntimeException | LinkageError e) {
            return Optional.of("libmlxc was loaded but is not a usable mlx-c: " + e);
        }
        return Optional.empty();
    }
}
