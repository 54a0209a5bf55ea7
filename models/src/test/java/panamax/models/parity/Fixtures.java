package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The shared fixtures root ({@code panamax.fixtures}, default {@code ../shared/fixtures}); missing is a failure. */
final class Fixtures {
    private Fixtures() {
    }

    static Path root() {
        Path root = Path.of(System.getProperty("panamax.fixtures", "../shared/fixtures")).toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) fail("fixtures root " + root + " is missing (set -Dpanamax.fixtures=DIR)");
        return root;
    }

    /** Every folder under the root holding a {@code reference.safetensors}, sorted. */
    static List<Path> modelFolders() {
        try (Stream<Path> s = Files.list(root())) {
            List<Path> folders = s.filter(p -> Files.isRegularFile(p.resolve("reference.safetensors"))).sorted().toList();
            if (folders.isEmpty()) fail("no folder with reference.safetensors under " + root());
            return folders;
        } catch (IOException e) {
            throw new AssertionError("cannot list " + root(), e);
        }
    }

    /**
     * The vector width this JVM's Java backend runs at, for messages: the preferred float species
     * (read reflectively: this module does not read jdk.incubator.vector, the test JVM adds it), and
     * the limit a vector-width run set.
     */
    static String vectorWidth() {
        String limit = System.getProperty("panamax.test.vector.bits", "");
        String species;
        try {
            species = String.valueOf(Class.forName("jdk.incubator.vector.FloatVector").getField("SPECIES_PREFERRED").get(null));
        } catch (ReflectiveOperationException | LinkageError e) {
            species = "no Vector API in this JVM";
        }
        return (limit.isBlank() ? "the CPU's own vectors" : "vectors limited to " + limit.strip() + " bits") + ", " + species;
    }
}
