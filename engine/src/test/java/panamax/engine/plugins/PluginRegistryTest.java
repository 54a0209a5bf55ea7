package panamax.engine.plugins;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginRegistryTest {
    private static final String GOOD_LAYOUT = """
            package test.good;
            import java.util.List;
            import panamax.api.kv.*;
            public final class GoodLayout implements KvLayoutProvider {
                public String id() { return "good-layout"; }
                public LayoutCapabilities capabilities() {
                    return LayoutCapabilities.builder("a test layout").batchable(true).trimmable(true).build();
                }
                public KvLayout create(PluginParams params, LayoutContext context) { throw new UnsupportedOperationException("test"); }
            }
            """;

    private static Path goodJar(Path dir, String name) {
        return PluginJars.build(dir, name, "1.2.3", Map.of(
                "module-info.java", "module test.good { requires panamax.api; provides panamax.api.kv.KvLayoutProvider with test.good.GoodLayout; }",
                "test/good/GoodLayout.java", GOOD_LAYOUT));
    }

    @Test
    void aGoodPluginJarIsFoundWithItsModuleVersionAndOrigin(@TempDir Path work) throws IOException {
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        Files.move(goodJar(work, "good.jar"), plugins.resolve("good.jar"));
        PluginRegistry registry = PluginRegistry.discover(Optional.of(plugins));
        DiscoveredPlugin<?> good = registry.find(PluginKind.LAYOUT, "good-layout").orElseThrow(() -> new AssertionError(registry.failures()));
        assertEquals("test.good", good.module());
        assertEquals("1.2.3", good.version());
        assertEquals("test.good@1.2.3", good.moduleAndVersion());
        assertEquals(plugins.toAbsolutePath().normalize().toString(), good.origin());
        assertEquals(List.of(), registry.failures());
    }

    @Test
    void badJarsAndThrowingProvidersAreReportedByNameWhileTheOthersStillLoad(@TempDir Path work) throws IOException {
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        Files.move(goodJar(work, "a-good.jar"), plugins.resolve("a-good.jar"));
        Files.copy(plugins.resolve("a-good.jar"), plugins.resolve("b-good-again.jar"));
        Files.writeString(plugins.resolve("corrupt.jar"), "this is not a zip file");
        Path boom = PluginJars.build(work, "boom.jar", "0.9", Map.of(
                "module-info.java", """
                        module test.boom {
                            requires panamax.api;
                            provides panamax.api.kv.KvCodecProvider with test.boom.BoomCodec;
                            provides panamax.api.kv.KvLayoutProvider with test.boom.FineLayout;
                        }""",
                "test/boom/BoomCodec.java", """
                        package test.boom;
                        import panamax.api.kv.*;
                        public final class BoomCodec implements KvCodecProvider {
                            public BoomCodec() { throw new IllegalStateException("boom: native library missing"); }
                            public String id() { return "boom"; }
                            public KvCodecCapabilities capabilities() { return null; }
                            public CodecShape shape(PluginParams p, int headDim) { return null; }
                            public KvCodec create(PluginParams p, CodecContext c) { return null; }
                        }""",
                "test/boom/FineLayout.java", GOOD_LAYOUT.replace("package test.good", "package test.boom")
                        .replace("GoodLayout", "FineLayout").replace("good-layout", "fine-layout")));
        Files.move(boom, plugins.resolve("boom.jar"));

        PluginRegistry registry = PluginRegistry.discover(Optional.of(plugins));

        assertTrue(registry.find(PluginKind.LAYOUT, "good-layout").isPresent(), registry.failures().toString());
        assertTrue(registry.find(PluginKind.LAYOUT, "fine-layout").isPresent(), "the other provider of the throwing jar loads");
        assertTrue(registry.find(PluginKind.CODEC, "boom").isEmpty());
        List<String> failures = registry.failures().stream().map(PluginFailure::toString).toList();
        assertTrue(failures.stream().anyMatch(f -> f.contains("corrupt.jar") && f.contains("not a readable module jar")), failures.toString());
        assertTrue(failures.stream().anyMatch(f -> f.startsWith("codec test.boom.BoomCodec") && f.contains("boom: native library missing")), failures.toString());
        assertTrue(failures.stream().anyMatch(f -> f.contains("b-good-again.jar") && f.contains("module test.good is also in")), failures.toString());
        assertEquals(3, failures.size(), failures.toString());
    }

    @Test
    void aJarThatCannotResolveIsIsolatedAndTheRestLoadInTheirOwnLayers(@TempDir Path work) throws IOException {
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        Files.move(goodJar(work, "good.jar"), plugins.resolve("good.jar"));
        Path lib = PluginJars.build(work, "lib.jar", "1.0", Map.of(
                "module-info.java", "module test.lib { exports test.lib; }",
                "test/lib/Lib.java", "package test.lib; public final class Lib { }"));
        Path needy = PluginJars.build(work, "needy.jar", "1.0", Map.of(
                "module-info.java", "module test.needy { requires test.lib; }",
                "test/needy/Needy.java", "package test.needy; public final class Needy { test.lib.Lib lib; }"),
                lib);
        Files.move(needy, plugins.resolve("needy.jar")); // test.lib stays out of plugins/: needy cannot resolve

        PluginRegistry registry = PluginRegistry.discover(Optional.of(plugins));

        assertTrue(registry.find(PluginKind.LAYOUT, "good-layout").isPresent(), registry.failures().toString());
        assertEquals(1, registry.failures().size(), registry.failures().toString());
        PluginFailure failure = registry.failures().getFirst();
        assertTrue(failure.source().endsWith("needy.jar") && failure.message().contains("test.lib"), failure.toString());
    }

    @Test
    void aMissingPluginsDirectoryMeansBootPluginsOnly() {
        PluginRegistry registry = PluginRegistry.discover(Optional.of(Path.of("/nonexistent/plugins")));
        assertTrue(registry.all().stream().allMatch(p -> p.origin().equals(DiscoveredPlugin.BOOT)));
        assertEquals(List.of(), registry.failures());
    }
}
