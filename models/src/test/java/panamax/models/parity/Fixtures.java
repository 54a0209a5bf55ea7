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

    /**
     * Every folder holding a {@code reference.safetensors}, sorted: the root's direct children, then
     * those of {@code new-families/} (families added later sit one level down so older suites that
     * list the root do not meet them).
     */
    static List<Path> modelFolders() {
        List<Path> folders = new java.util.ArrayList<>(rootModelFolders());
        Path newFamilies = root().resolve("new-families");
        if (!Files.isDirectory(newFamilies)) fail("fixtures folder " + newFamilies + " is missing");
        List<Path> later = withReference(newFamilies);
        if (later.isEmpty()) fail("no folder with reference.safetensors under " + newFamilies);
        folders.addAll(later);
        return folders;
    }

    /** The root's direct children holding a {@code reference.safetensors}, sorted (no {@code new-families/}). */
    static List<Path> rootModelFolders() {
        List<Path> folders = withReference(root());
        if (folders.isEmpty()) fail("no folder with reference.safetensors under " + root());
        return folders;
    }

    /** Whether {@code dir} is one of {@code new-families/}'s models. */
    static boolean isNewFamily(Path dir) {
        return dir.getParent().equals(root().resolve("new-families"));
    }

    private static List<Path> withReference(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("reference.safetensors"))).sorted().toList();
        } catch (IOException e) {
            throw new AssertionError("cannot list " + dir, e);
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
