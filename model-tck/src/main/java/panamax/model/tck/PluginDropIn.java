package panamax.model.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.spi.ToolProvider;
import panamax.api.model.LoadOptions;

/**
 * A model plugin as a user installs it: its classes jarred into a {@code plugins/} folder of a fresh
 * JVM that has panamax (api, engine, backend, codecs, layouts, model support) on its module path
 * but not the plugin; the engine must find it there and its model must match the reference.
 * Stateless.
 */
public final class PluginDropIn {
    /** Jars the distribution leaves out too (split or annotation-only packages), and test-only jars. */
    private static final Set<String> NOT_MODULES = Set.of("jsr305", "checker-qual", "error_prone_annotations", "j2objc-annotations",
            "listenablefuture", "junit", "opentest4j", "apiguardian", "surefire", "common-java5", "common-junit", "quicktheories");
    /** Test kits: they require JUnit, which the child leaves out. */
    private static final Set<String> KITS = Set.of("panamax.model.tck", "panamax.layout.tck", "panamax.codec.tck", "panamax.backend.tck");

    private PluginDropIn() {
    }

    /**
     * Jars {@code classes} (the plugin's compiled classes with its {@code module-info}) into
     * {@code work/plugins}, runs the child JVM and asserts that plugin {@code id} was found in that
     * folder and that {@code model} matches its reference within {@code tolerance}.
     *
     * @return the parity JSON the child printed
     */
    public static String check(String id, Path classes, Path model, Path work, LoadOptions.BufferPrecision buffers, double tolerance)
            throws IOException, InterruptedException {
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        Path jar = plugins.resolve(id + "-plugin.jar");
        int rc = ToolProvider.findFirst("jar").orElseThrow().run(System.out, System.err,
                "--create", "--file", jar.toString(), "-C", classes.toString(), ".");
        assertEquals(0, rc, "jar tool");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector,ALL-MODULE-PATH",
                "--module-path", String.join(File.pathSeparator, modulePath(classes)), "-cp", location(DropInMain.class).toString(),
                DropInMain.class.getName(), model.toAbsolutePath().toString(), plugins.toString(),
                System.getProperty("panamax.test.backend", "").isBlank() ? "java" : System.getProperty("panamax.test.backend"), buffers.name());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        List<String> lines = out.lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("model-plugin " + id + " ") && l.endsWith(" " + plugins.toAbsolutePath().normalize())),
                "model plugin " + id + " should come from the plugins folder:\n" + out);
        String json = lines.stream().filter(l -> l.startsWith("{")).findFirst().orElseThrow(() -> new AssertionError("no parity JSON in:\n" + out));
        JsonNode report = new ObjectMapper().readTree(json);
        for (String field : new String[]{"max_abs_diff_single", "max_abs_diff_steps", "max_abs_diff_batch"}) {
            assertTrue(report.path(field).asDouble(Double.NaN) <= tolerance, field + ": " + json);
        }
        assertEquals(0, report.path("decisive_mismatches").asInt(-1), json);
        return json;
    }

    /** This JVM's modules and jars, less the plugin itself, test classes, the kits and the jars that are no modules. */
    private static List<String> modulePath(Path plugin) {
        Set<String> entries = new LinkedHashSet<>();
        for (String property : new String[]{"jdk.module.path", "java.class.path"}) {
            String value = System.getProperty(property, "");
            if (!value.isBlank()) entries.addAll(List.of(value.split(File.pathSeparator)));
        }
        List<String> out = new ArrayList<>();
        for (String entry : entries) {
            Path path = Path.of(entry).toAbsolutePath().normalize();
            String name = path.getFileName() == null ? "" : path.getFileName().toString();
            if (path.equals(plugin.toAbsolutePath().normalize()) || name.equals("test-classes") || !Files.exists(path)) continue;
            if (name.endsWith(".jar") && NOT_MODULES.stream().anyMatch(name::startsWith)) continue;
            if (!name.endsWith(".jar") && !Files.isRegularFile(path.resolve("module-info.class"))) continue;
            if (isKit(path)) continue;
            out.add(entry);
        }
        return out;
    }

    private static boolean isKit(Path path) {
        try {
            return ModuleFinder.of(path).findAll().stream().map(ModuleReference::descriptor).map(ModuleDescriptor::name).anyMatch(KITS::contains);
        } catch (FindException e) {
            return false; // not a module the finder reads; the child JVM judges it as it would
        }
    }

    private static Path location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Where {@code plugin}'s classes were loaded from: its classes folder or jar. */
    static Path classesOf(Object plugin) {
        return location(plugin.getClass());
    }
}
