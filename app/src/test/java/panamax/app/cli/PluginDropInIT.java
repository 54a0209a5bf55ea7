package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drops the fp8 example jar into a fresh plugins folder and runs the real distribution
 * ({@code dist/bin/panamax}: its own JDK lookup, module path and ALL-MODULE-PATH) in a child process.
 */
class PluginDropInIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path pluginsWithFp8(Path work) throws IOException {
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        Files.copy(Launcher.fp8Jar(), plugins.resolve("fp8.jar"));
        return plugins;
    }

    private static JsonNode json(Launcher.Result r) throws IOException {
        assertEquals(0, r.exit(), "exit code; stderr: " + r.err());
        return JSON.readTree(r.out());
    }

    private static JsonNode plugin(JsonNode listing, String kind, String id) {
        for (JsonNode p : listing.get("plugins")) {
            if (p.get("kind").asText().equals(kind) && p.get("id").asText().equals(id)) return p;
        }
        return null;
    }

    @Test
    void theDroppedInJarIsListedWithItsModuleVersionAndThePluginsFolderAsOrigin(@TempDir Path work) throws Exception {
        Path plugins = pluginsWithFp8(work);
        JsonNode listing = json(Launcher.dist(work, "plugins", "--json", "--plugins", plugins.toString()));
        JsonNode fp8 = plugin(listing, "codec", "fp8");
        assertTrue(fp8 != null, listing.toString());
        assertEquals("panamax.example.fp8", fp8.get("module").asText());
        assertEquals("0.1.0", fp8.get("version").asText());
        assertEquals(plugins.toAbsolutePath().normalize().toString(), fp8.get("origin").asText());
        assertEquals(0, fp8.get("params").size());
        assertEquals(0, listing.get("failures").size(), listing.get("failures").toString());

        Launcher.Result text = Launcher.dist(work, "plugins", "--plugins", plugins.toString());
        String line = "\\s+fp8\\s+panamax\\.example\\.fp8@0\\.1\\.0\\s+" + java.util.regex.Pattern.quote(plugins.toAbsolutePath().normalize().toString());
        assertTrue(text.out().lines().anyMatch(l -> l.matches(line)), text.out());
    }

    @Test
    void planWithTheDroppedInCodecResolvesEveryLayerWithIt(@TempDir Path work) throws Exception {
        Path plugins = pluginsWithFp8(work);
        JsonNode plan = json(Launcher.dist(work, "plan", "--kv-codec", "fp8", "--plugins", plugins.toString(), "--json"));
        assertEquals(16, plan.get("layers").size());
        for (JsonNode layer : plan.get("layers")) {
            assertEquals("fp8", layer.get("codec").asText());
            assertEquals("full", layer.get("layout").asText());
            // 8 kv heads x (64 U8 codes + one f32 scale) for keys and values
            assertEquals(8 * 2 * (64 + 4), layer.get("bytesPerToken").asLong());
        }
        List<String> origins = new ArrayList<>();
        plan.get("plugins").forEach(p -> origins.add(p.get("kind").asText() + " " + p.get("id").asText() + " " + p.get("origin").asText()));
        assertTrue(origins.contains("codec fp8 " + plugins.toAbsolutePath().normalize()), origins.toString());
        assertTrue(origins.contains("backend java boot"), origins.toString());
    }

    @Test
    void aCorruptJarIsReportedByNameWhileTheOtherPluginsStillLoadAndPlan(@TempDir Path work) throws Exception {
        Path plugins = pluginsWithFp8(work);
        Files.writeString(plugins.resolve("corrupt.jar"), "not a zip archive");
        JsonNode listing = json(Launcher.dist(work, "plugins", "--json", "--plugins", plugins.toString()));
        assertTrue(plugin(listing, "codec", "fp8") != null, "fp8 still loads");
        assertTrue(plugin(listing, "backend", "java") != null, "boot plugins still load");
        assertEquals(1, listing.get("failures").size(), listing.get("failures").toString());
        JsonNode failure = listing.get("failures").get(0);
        assertTrue(failure.get("source").asText().endsWith("corrupt.jar"), failure.toString());
        assertTrue(failure.get("message").asText().contains("not a readable module jar"), failure.toString());

        Launcher.Result plan = Launcher.dist(work, "plan", "--kv-codec", "fp8", "--plugins", plugins.toString());
        assertEquals(0, plan.exit(), plan.err());
    }

    @Test
    void theRootWrapperDefaultsPluginsToTheCallersFolderAndTheDistributionToItsOwn(@TempDir Path work) throws Exception {
        pluginsWithFp8(work);
        JsonNode viaWrapper = json(Launcher.run(Launcher.root().resolve("panamax"), work, Map.of(), "plugins", "--json"));
        assertTrue(plugin(viaWrapper, "codec", "fp8") != null, "./plugins of the caller is the wrapper's default");
        JsonNode viaDist = json(Launcher.dist(work, "plugins", "--json"));
        assertTrue(plugin(viaDist, "codec", "fp8") == null, "the distribution defaults to its own plugins/ folder");
        assertTrue(plugin(viaDist, "layout", "full") != null, "built-in plugins load from any working directory");
    }

    @Test
    void userMistakesPrintOneLineWithoutAStackTraceAndExitTwo(@TempDir Path work) throws Exception {
        Launcher.Result unknown = Launcher.dist(work, "plan", "--kv-bitz", "4");
        assertEquals(2, unknown.exit());
        assertEquals(1, unknown.errLines().size(), unknown.err());
        Launcher.Result badBits = Launcher.dist(work, "plan", "--kv-bits", "7");
        assertEquals(2, badBits.exit());
        assertEquals(List.of("panamax plan: invalid affine bits = 7: allowed 2, 3, 4, 5, 6, 8"), badBits.errLines());
        Launcher.Result missingDir = Launcher.dist(work, "plugins", "--plugins", work.resolve("nowhere").toString());
        assertEquals(2, missingDir.exit());
        assertEquals(1, missingDir.errLines().size(), missingDir.err());
    }
}
