package panamax.example.gpt2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin's jar, dropped into a plugins folder of a fresh JVM that has panamax on its module
 * path but not this plugin, is discovered from there, loads {@code fixtures/gpt2-tiny} and passes
 * the same parity check as the built-in families (max |Δlogit| ≤ 1e-4, no decisive greedy mismatch).
 */
class Gpt2DropInParityTest {
    /** Jars the distribution leaves out too (split or annotation-only packages), and test-only jars. */
    private static final Set<String> NOT_MODULES = Set.of("jsr305", "checker-qual", "error_prone_annotations", "j2objc-annotations",
            "listenablefuture", "junit", "opentest4j", "apiguardian", "surefire", "common-java5", "common-junit", "quicktheories");

    @Test
    void droppedIntoPluginsItMatchesTheGpt2Reference(@TempDir Path tmp) throws Exception {
        Path model = Path.of(System.getProperty("panamax.fixtures", "../../../shared/fixtures")).resolve("gpt2-tiny").toAbsolutePath().normalize();
        assertTrue(Files.isDirectory(model), "fixture " + model + " is missing (set -Dpanamax.fixtures=DIR)");
        Path plugins = Files.createDirectories(tmp.resolve("plugins"));
        Path jar = plugins.resolve("panamax-example-gpt2.jar");
        int rc = ToolProvider.findFirst("jar").orElseThrow().run(System.out, System.err,
                "--create", "--file", jar.toString(), "-C", System.getProperty("gpt2.classes"), ".");
        assertEquals(0, rc, "jar tool");

        List<String> modulePath = new ArrayList<>();
        String testClasses = null;
        Path own = Path.of(System.getProperty("gpt2.classes")).toAbsolutePath().normalize();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath().normalize();
            String name = path.getFileName().toString();
            if (name.equals("test-classes")) {
                testClasses = entry;
            } else if (path.equals(own)) {
                continue; // the plugin itself must come from plugins/ only
            } else if (name.endsWith(".jar") ? NOT_MODULES.stream().noneMatch(name::startsWith)
                    : Files.isRegularFile(path.resolve("module-info.class"))) {
                modulePath.add(entry); // a reactor build without packaging passes sibling modules as classes folders
            }
        }
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector,ALL-MODULE-PATH",
                "--module-path", String.join(File.pathSeparator, modulePath), "-cp", testClasses,
                "panamax.example.gpt2.dropin.DropInParityMain", model.toString(), plugins.toString());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);

        List<String> lines = out.lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("model-plugin gpt2 panamax.example.gpt2")
                        && l.endsWith(" " + plugins.toAbsolutePath().normalize())),
                "gpt2 should come from the plugins folder:\n" + out);
        String json = lines.stream().filter(l -> l.startsWith("{")).findFirst().orElseThrow(() -> new AssertionError(out));
        System.out.println("gpt2-tiny " + json);
        for (String field : new String[]{"max_abs_diff_single", "max_abs_diff_steps", "max_abs_diff_batch"}) {
            assertTrue(number(json, field) <= 1e-4, field + ": " + json);
        }
        assertEquals(0, (int) number(json, "decisive_mismatches"), json);
    }

    private static double number(String json, String field) {
        int i = json.indexOf("\"" + field + "\": ");
        if (i < 0) throw new AssertionError(field + " missing from " + json);
        String rest = json.substring(i + field.length() + 4);
        return Double.parseDouble(rest.substring(0, Arrays.stream(new int[]{rest.indexOf(','), rest.indexOf('}')}).filter(x -> x >= 0).min().orElseThrow()).trim());
    }
}
