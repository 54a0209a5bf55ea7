package panamax.archetype.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a plugin author does after {@code ./dev build}, end to end: generate a codec and a layout
 * plugin from {@code panamax-plugin-archetype}, build each (its conformance-kit test included), drop
 * the jars into a plugins folder, and run the real distribution ({@code dist/bin/panamax}) with them
 * on the bundled demo model. The sub-builds run offline with the Maven and the local repository of
 * this build, so everything they need is what this build installed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PluginArchetypeIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CODEC_ID = "itbf16";
    private static final String LAYOUT_ID = "itfull";
    private static final String MODEL_ID = "itgpt2";
    private static final String PROMPT = "Call me Ishmael.";
    private static final int TOKENS = 8;
    private static final String AGGREGATOR = """
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <groupId>com.example</groupId>
              <artifactId>generated-plugins</artifactId>
              <version>1.0.0</version>
              <packaging>pom</packaging>
              <modules>
                <module>it-codec</module>
                <module>it-layout</module>
                <module>it-model</module>
              </modules>
            </project>
            """;

    private final Path dist = property("panamax.dist", "../dist");
    private final Path root = property("panamax.root", "..");
    private final String version = System.getProperty("panamax.version", "0.1.0");
    private final Path repository = property("panamax.it.maven.repo", System.getProperty("user.home") + "/.m2/repository");
    private final Path work = property("panamax.it.work", "target/archetype-it");

    private Path codecProject;
    private Path layoutProject;
    private Path modelProject;
    private Path gpt2Tiny;
    private Path plugins;
    private Path demoModel;

    private static Path property(String name, String fallback) {
        return Path.of(System.getProperty(name, fallback)).toAbsolutePath().normalize();
    }

    @BeforeAll
    void generateBuildAndDropInBothKinds() throws Exception {
        Path archetype = repository.resolve("io/panamax/panamax-plugin-archetype/" + version + "/panamax-plugin-archetype-" + version + ".jar");
        assertTrue(Files.isRegularFile(archetype), "the archetype is not in the local repository " + repository
                + ": this test runs after `mvn install` of plugin-archetype (./dev test installs it)");
        assertTrue(Files.isExecutable(dist.resolve("bin/panamax")), "no distribution at " + dist + ": app's package phase assembles it");
        gpt2Tiny = property("panamax.fixtures", "../../shared/fixtures").resolve("gpt2-tiny");
        assertTrue(Files.isRegularFile(gpt2Tiny.resolve("reference.safetensors")), "the gpt2-tiny fixture is missing: " + gpt2Tiny);
        deleteRecursively(work);
        Files.createDirectories(work);
        codecProject = generate("codec", "com.example.itcodec", "it-codec", CODEC_ID);
        layoutProject = generate("layout", "com.example.itlayout", "it-layout", LAYOUT_ID);
        modelProject = generate("model", "com.example.itmodel", "it-model", MODEL_ID);
        // one reactor for all three (one Maven start-up); the layout kit's 500-sequence property is left to the
        // author's own build: here each operation it declares runs its 40 sequences (about 15 s instead of 65);
        // the model kit checks the GPT-2 skeleton against transformers' logits for the gpt2-tiny fixture
        Files.writeString(work.resolve("pom.xml"), AGGREGATOR);
        maven(work, "build", "package", "-Dsurefire.failIfNoSpecifiedTests=false",
                "-Dtest=!ForwardingLayoutTckTest#everyDeclaredOperationSequenceKeepsTheLayoutEqualToTheReference",
                "-Dpanamax.model.dir=" + gpt2Tiny);
        plugins = Files.createDirectories(work.resolve("plugins"));
        Files.copy(codecProject.resolve("target/it-codec-1.0.0.jar"), plugins.resolve("it-codec.jar"));
        Files.copy(layoutProject.resolve("target/it-layout-1.0.0.jar"), plugins.resolve("it-layout.jar"));
        Files.copy(modelProject.resolve("target/it-model-1.0.0.jar"), plugins.resolve("it-model.jar"));
        Command.Result where = panamax("demo-model", "demo-model");
        succeeded(where, "panamax demo-model");
        demoModel = Path.of(where.out().strip());
    }

    /** {@code archetype:generate} in batch mode, as docs/plugins.md tells a plugin author. */
    private Path generate(String kind, String groupId, String artifactId, String pluginId) throws Exception {
        maven(work, "archetype-" + kind,
                "org.apache.maven.plugins:maven-archetype-plugin:" + System.getProperty("panamax.it.archetype.plugin", "3.4.1") + ":generate",
                "-DarchetypeCatalog=local",
                "-DarchetypeGroupId=io.panamax", "-DarchetypeArtifactId=panamax-plugin-archetype", "-DarchetypeVersion=" + version,
                "-DgroupId=" + groupId, "-DartifactId=" + artifactId, "-Dversion=1.0.0", "-Dkind=" + kind, "-DpluginId=" + pluginId);
        return work.resolve(artifactId);
    }

    private void maven(Path directory, String name, String... goals) throws Exception {
        String home = System.getProperty("panamax.it.maven.home");
        assertNotNull(home, "panamax.it.maven.home is not set: run this test through Maven (plugin-archetype-it's pom sets it)");
        List<String> command = new ArrayList<>(List.of(Path.of(home, "bin", "mvn").toString(), "-B", "-ntp", "-o",
                "-Dmaven.repo.local=" + repository));
        command.addAll(List.of(goals));
        Command.Result r = Command.run(command, directory, Map.of("JAVA_HOME", System.getProperty("java.home")), 600,
                work.resolve(name + ".log"));
        succeeded(r, "the " + name + " sub-build");
    }

    /** Fails unless {@code r} exited 0, printing everything it wrote (surefire shows it under the test) and keeping it in the message. */
    private static void succeeded(Command.Result r, String what) {
        if (r.exit() == 0) return;
        System.err.println(what + " failed:\n" + r.report());
        throw new AssertionError(what + " failed:\n" + r.report());
    }

    private Command.Result panamax(String name, String... args) throws Exception {
        return Command.run(Command.bash(dist.resolve("bin/panamax"), args), work, Map.of(), 300, work.resolve(name + ".log"));
    }

    private static JsonNode json(Command.Result r) throws IOException {
        succeeded(r, "panamax");
        return JSON.readTree(r.out());
    }

    @Test
    void eachProjectHoldsItsKindsModuleProviderAndKitTestAndTheWrapper() throws Exception {
        assertEquals("""
                module com.example.itcodec {
                    requires panamax.api;

                    provides panamax.api.kv.KvCodecProvider with com.example.itcodec.Bf16CodecProvider;
                }
                """, moduleDeclaration(codecProject));
        assertTrue(moduleDeclaration(layoutProject).contains("provides panamax.api.kv.KvLayoutProvider with com.example.itlayout.ForwardingLayoutProvider;"),
                moduleDeclaration(layoutProject));
        assertEquals(List.of("src/main/java/com/example/itcodec/Bf16Codec.java", "src/main/java/com/example/itcodec/Bf16CodecProvider.java",
                "src/main/java/module-info.java", "src/test/java/com/example/itcodec/Bf16CodecTckTest.java"), sources(codecProject));
        assertEquals(List.of("src/main/java/com/example/itlayout/ForwardingLayout.java", "src/main/java/com/example/itlayout/ForwardingLayoutProvider.java",
                "src/main/java/module-info.java", "src/test/java/com/example/itlayout/ForwardingLayoutTckTest.java"), sources(layoutProject));
        assertTrue(moduleDeclaration(modelProject).contains("requires panamax.model.support;"), moduleDeclaration(modelProject));
        assertTrue(moduleDeclaration(modelProject).contains("provides panamax.api.model.ModelPlugin with com.example.itmodel.Gpt2Plugin;"),
                moduleDeclaration(modelProject));
        assertEquals(List.of("src/main/java/com/example/itmodel/Gpt2Config.java", "src/main/java/com/example/itmodel/Gpt2Graph.java",
                "src/main/java/com/example/itmodel/Gpt2Plugin.java", "src/main/java/com/example/itmodel/Gpt2Weights.java",
                "src/main/java/module-info.java", "src/test/java/com/example/itmodel/Gpt2PluginTckTest.java"), sources(modelProject));
        for (Path project : List.of(codecProject, layoutProject, modelProject)) {
            assertFalse(Files.exists(project.resolve("kinds")), "the other kinds' sources are removed");
            assertTrue(Files.isExecutable(project.resolve("mvnw")), "the Maven wrapper is executable");
            assertEquals(Files.readString(root.resolve(".mvn/wrapper/maven-wrapper.properties")),
                    Files.readString(project.resolve(".mvn/wrapper/maven-wrapper.properties")), "the wrapper fetches panamax's Maven");
            String pom = Files.readString(project.resolve("pom.xml"));
            assertTrue(pom.contains("<panamax.version>" + version + "</panamax.version>"), pom);
            assertFalse(pom.contains("the dependencies of the plugin kind"), pom);
        }
    }

    @Test
    void eachBuildRanItsConformanceKitAndPassed() throws Exception {
        assertKitRan(codecProject, "com.example.itcodec.Bf16CodecTckTest", 9, 0);
        // all but the 500-sequence property; the conversion test is skipped: the layout does not declare convertsCodec
        assertKitRan(layoutProject, "com.example.itlayout.ForwardingLayoutTckTest", 7, 1);
        // describe, parity (single prompt, cached decode, batch, greedy ids), no leak, the drop-in, and each of
        // gpt2-tiny's weight tensors missing and reshaped
        assertKitRan(modelProject, "com.example.itmodel.Gpt2PluginTckTest", 7 + 2 * tensors(gpt2Tiny.resolve("model.safetensors")), 0);
    }

    /** The tensors a safetensors file holds: the keys of its JSON header, less {@code __metadata__}. */
    private static int tensors(Path safetensors) throws IOException {
        try (var in = Files.newInputStream(safetensors)) {
            byte[] size = in.readNBytes(8);
            long length = java.nio.ByteBuffer.wrap(size).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            JsonNode header = JSON.readTree(in.readNBytes((int) length));
            int n = 0;
            for (var names = header.fieldNames(); names.hasNext(); ) if (!names.next().equals("__metadata__")) n++;
            return n;
        }
    }

    private static void assertKitRan(Path project, String testClass, int tests, int skipped) throws IOException {
        Path report = project.resolve("target/surefire-reports/TEST-" + testClass + ".xml");
        assertTrue(Files.isRegularFile(report), "no surefire report " + report);
        String header = Files.readString(report).lines().filter(l -> l.contains("<testsuite ")).findFirst().orElseThrow();
        assertEquals(tests, attribute(header, "tests"), header);
        assertEquals(0, attribute(header, "failures") + attribute(header, "errors"), header);
        assertEquals(skipped, attribute(header, "skipped"), header);
    }

    private static int attribute(String element, String name) {
        Matcher m = Pattern.compile("\\s" + name + "=\"(\\d+)\"").matcher(element);
        assertTrue(m.find(), name + " in " + element);
        return Integer.parseInt(m.group(1));
    }

    @Test
    void panamaxPluginsListsBothJarsWithTheirModulesAndThePluginsFolder() throws Exception {
        JsonNode listing = json(panamax("plugins", "plugins", "--json", "--plugins", plugins.toString()));
        assertEquals(0, listing.get("failures").size(), listing.get("failures").toString());
        JsonNode codec = plugin(listing, "codec", CODEC_ID);
        assertEquals("com.example.itcodec", codec.get("module").asText());
        assertEquals("1.0.0", codec.get("version").asText());
        assertEquals(plugins.toString(), codec.get("origin").asText());
        JsonNode layout = plugin(listing, "layout", LAYOUT_ID);
        assertEquals("com.example.itlayout", layout.get("module").asText());
        assertEquals(plugins.toString(), layout.get("origin").asText());
        JsonNode model = plugin(listing, "model", MODEL_ID);
        assertEquals("com.example.itmodel", model.get("module").asText());
        assertEquals("[\"gpt2\"]", model.get("modelTypes").toString());
    }

    @Test
    void theGeneratedModelPluginGeneratesFromTheGpt2Fixture() throws Exception {
        Command.Result r = panamax("generate-model", "generate", "--model", gpt2Tiny.toString(), "--prompt", "Hello",
                "--max-tokens", Integer.toString(TOKENS), "--temp", "0", "--plugins", plugins.toString());
        succeeded(r, "panamax generate --model gpt2-tiny");
        assertTrue(r.err().contains("model plugin " + MODEL_ID), r.report());
        assertTrue(generatedTokens(r) >= 1, r.report());
    }

    private static JsonNode plugin(JsonNode listing, String kind, String id) {
        for (JsonNode p : listing.get("plugins")) {
            if (p.get("kind").asText().equals(kind) && p.get("id").asText().equals(id)) return p;
        }
        throw new AssertionError("no " + kind + " " + id + " in " + listing);
    }

    @Test
    void planOnTheDemoModelStoresEveryLayerWithTheGeneratedCodec() throws Exception {
        JsonNode plan = json(panamax("plan-codec", "plan", "--model", demoModel.toString(), "--kv-codec", CODEC_ID,
                "--plugins", plugins.toString(), "--json"));
        assertEquals(8, plan.get("layers").size(), plan.toString());
        for (JsonNode layer : plan.get("layers")) {
            assertEquals(CODEC_ID, layer.get("codec").asText(), layer.toString());
            assertEquals("full", layer.get("layout").asText(), layer.toString());
            // 2 kv heads x 64 bf16 values, for keys and values
            assertEquals(2 * 64 * 2 * 2, layer.get("bytesPerToken").asLong(), layer.toString());
        }
    }

    @Test
    void generateOnTheDemoModelWithTheGeneratedCodecWritesTokens() throws Exception {
        Command.Result r = generate("generate-codec", "--kv-codec", CODEC_ID);
        assertEquals(TOKENS, generatedTokens(r), r.report());
    }

    @Test
    void theGeneratedLayoutPlansEveryLayerAndGeneratesWhatFullGenerates() throws Exception {
        JsonNode plan = json(panamax("plan-layout", "plan", "--model", demoModel.toString(), "--kv-layout", LAYOUT_ID,
                "--plugins", plugins.toString(), "--json"));
        for (JsonNode layer : plan.get("layers")) assertEquals(LAYOUT_ID, layer.get("layout").asText(), layer.toString());
        Command.Result forwarded = generate("generate-layout", "--kv-layout", LAYOUT_ID);
        Command.Result full = generate("generate-full", "--kv-layout", "full");
        assertEquals(TOKENS, generatedTokens(forwarded), forwarded.report());
        // it forwards every call to full, so greedy decoding writes the same text
        assertEquals(text(full), text(forwarded), forwarded.report() + "\n" + full.report());
    }

    private Command.Result generate(String name, String... kvFlags) throws Exception {
        List<String> args = new ArrayList<>(List.of("generate", "--prompt", PROMPT, "--max-tokens", Integer.toString(TOKENS),
                "--temp", "0", "--plugins", plugins.toString()));
        args.addAll(List.of(kvFlags));
        Command.Result r = panamax(name, args.toArray(String[]::new));
        succeeded(r, "panamax generate");
        return r;
    }

    /** The count of the stats line {@code generation: N tokens}. */
    private static int generatedTokens(Command.Result r) {
        Matcher m = Pattern.compile("generation: (\\d+) tokens").matcher(r.out());
        assertTrue(m.find(), "no stats line in " + r.report());
        return Integer.parseInt(m.group(1));
    }

    /** What was written before the stats line. */
    private static String text(Command.Result r) {
        return r.out().lines().takeWhile(l -> !l.matches("\\[\\w+\\] prompt: .*")).reduce("", (a, b) -> a + b + "\n");
    }

    private static String moduleDeclaration(Path project) throws IOException {
        String source = Files.readString(project.resolve("src/main/java/module-info.java"));
        return source.substring(source.indexOf("module "));
    }

    private static List<String> sources(Path project) throws IOException {
        try (Stream<Path> files = Files.walk(project.resolve("src"))) {
            return files.filter(Files::isRegularFile).map(f -> project.relativize(f).toString().replace('\\', '/')).sorted().toList();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) Files.delete(p);
        }
    }
}
