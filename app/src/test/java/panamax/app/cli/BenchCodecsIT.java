package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code panamax bench codecs} from the real distribution runs each case in a JVM of its own,
 * launched from the distribution's own command line (module path, JDK, options).
 */
class BenchCodecsIT {
    @Test
    void eachCaseRunsInAJvmOfItsOwn(@TempDir Path work) throws Exception {
        Launcher.Result r = Launcher.dist(work, "bench", "codecs", "--json", "--codecs", "identity", "--head-dims", "64,128",
                "--tokens", "64", "--encode-tokens", "64", "--copy-mib", "1", "--reps", "1", "--warmup-ms", "0");
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(2, lines.size(), r.out());
        for (int i = 0; i < 2; i++) {
            assertTrue(lines.get(i).startsWith("{\"codec\":\"identity\",\"key_bits\":16,"), lines.get(i));
            assertTrue(lines.get(i).contains("\"head_dim\":" + (i == 0 ? 64 : 128) + ","), lines.get(i));
            assertTrue(lines.get(i).endsWith("\"jvm\":\"own\"}"), lines.get(i));
        }
    }

    @Test
    void aBadOptionIsReportedOnceWithUsage(@TempDir Path work) throws Exception {
        Launcher.Result r = Launcher.dist(work, "bench", "codecs", "--backend", "nope", "--head-dims", "64");
        assertEquals(2, r.exit(), r.err());
        assertEquals(1, r.errLines().stream().filter(l -> l.contains("--backend nope: no such backend")).count(), r.err());
        assertTrue(r.out().lines().count() <= 3, r.out()); // the table's three heading lines at most, no rows
    }
}
