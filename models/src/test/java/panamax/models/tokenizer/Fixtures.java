package panamax.models.tokenizer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** Locates the shared fixtures folder; a missing folder fails the test rather than skipping it. */
final class Fixtures {
    private Fixtures() {
    }

    static Path root() {
        Path root = Path.of(System.getProperty("panamax.fixtures", "../shared/fixtures"));
        assertTrue(Files.isDirectory(root), "fixtures folder missing: " + root.toAbsolutePath()
                + " (set -Dpanamax.fixtures)");
        return root;
    }

    static List<Path> folders(Predicate<Path> which) {
        try (Stream<Path> children = Files.list(root())) {
            return children.filter(Files::isDirectory).filter(which).sorted().toList();
        } catch (IOException e) {
            throw new AssertionError("cannot list " + root(), e);
        }
    }
}
