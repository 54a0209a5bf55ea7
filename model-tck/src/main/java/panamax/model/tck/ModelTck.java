package panamax.model.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.plan.KvScheme;
import panamax.api.tensor.Backend;
import panamax.api.tensor.MemoryStats;
import panamax.engine.parity.ParityReference;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.model.support.config.HfConfig;

/**
 * The model conformance suite. A subclass names its plugin and a Hugging Face model directory
 * holding a {@code reference.safetensors} in the fixtures' format (transformers' logits and greedy
 * ids, see {@code fixtures/README.md}), and inherits these checks:
 * <ul>
 *   <li>the plugin reads the directory's {@code model_type} and describes it with the reference's vocabulary;
 *   <li>one prefill of the single prompt gives the reference logits at every position, within
 *       {@link #tolerance()} (1e-4 by default);
 *   <li>its KV-cached greedy decode, fed the reference ids one at a time, gives the reference logits;
 *   <li>a left-padded batch, prefilled as one cohort and decoded together, gives each row's reference logits;
 *   <li>no greedy id differs where the reference's top-1/top-2 margin exceeds twice the measured error;
 *   <li>loading then closing the model leaves the backend's allocated and mapped bytes where they were;
 *   <li>for every weight tensor: a copy of the checkpoint without it, and one with it in another
 *       shape of the same bytes ({@link BrokenCheckpoint#wrongShape}), fail to load with a
 *       {@link BadModelFileException} that names the tensor (and, for the shape, the expected and
 *       the found dims), leaking nothing;
 *   <li>when {@link #checkDropIn()} says so, a jar of the plugin dropped into a plugins folder of a
 *       fresh JVM is found there and matches the reference.
 * </ul>
 * The caches are planned and built by the engine as for generation (identity KV codec, the layouts
 * the model's KV needs ask for). Runs on the {@code java} backend unless
 * {@code -Dpanamax.test.backend=ID} names another. A missing model directory or reference fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ModelTck {
    private Backend backend;
    private ParityReport report;

    /** The plugin under test. */
    protected abstract ModelPlugin plugin();

    /** The Hugging Face model directory: {@code config.json}, the weights and the reference. */
    protected abstract Path modelDirectory();

    /** The reference logits; {@code reference.safetensors} in the model directory unless overridden. */
    protected Path reference() {
        return modelDirectory().resolve("reference.safetensors");
    }

    /** Max |Δlogit| in every part of the comparison; {@link ModelParity#TOLERANCE} unless overridden. */
    protected double tolerance() {
        return ModelParity.TOLERANCE;
    }

    /**
     * The precision of derived constants (RoPE frequencies) the reference was made with: what the
     * {@code hf_buffers} of a {@code reference.json} beside it declares, float32 when none.
     */
    protected LoadOptions.BufferPrecision buffers() {
        return ParityRun.declaredBuffers(reference());
    }

    /** Weight tensors that a load may do without (e.g. a buffer the plugin recomputes); none unless overridden. */
    protected Set<String> optionalTensors() {
        return Set.of();
    }

    /**
     * Whether to check the plugin as a user installs it ({@link PluginDropIn}: its classes jarred into
     * a plugins folder of a child JVM, found there, matching the reference); off unless overridden,
     * as it starts a JVM. Needs the plugin's classes outside this JVM's module path.
     */
    protected boolean checkDropIn() {
        return false;
    }

    @BeforeAll
    void startBackend() {
        Path dir = modelDirectory();
        if (!Files.isRegularFile(dir.resolve("config.json"))) fail("model directory " + dir.toAbsolutePath() + " has no config.json");
        if (!Files.isRegularFile(reference())) fail("reference " + reference().toAbsolutePath() + " is missing");
        backend = ModelParity.testBackend();
    }

    @AfterAll
    void stopBackend() {
        if (backend != null) backend.close();
    }

    /** The comparison, run once for the parity tests of this class. */
    private ParityReport report() {
        if (report == null) {
            report = ModelParity.check(plugin(), modelDirectory(), reference(), buffers(), KvScheme.identity(), backend);
            System.out.println(modelDirectory().getFileName() + " " + report.toJson());
        }
        return report;
    }

    @Test
    void thePluginReadsTheModelTypeAndDescribesTheReferenceVocabulary() {
        String type = HfConfig.read(modelDirectory().resolve("config.json")).string("model_type").orElse("(none)");
        assertTrue(plugin().modelTypes().contains(type), "plugin " + plugin().id() + " reads " + plugin().modelTypes() + ", the model is " + type);
        ModelSpec spec = plugin().describe(modelDirectory());
        assertEquals(ParityReference.read(reference()).vocab(), spec.vocabSize(), "vocabulary of " + spec);
        assertFalse(spec.layers().isEmpty(), "a model with no layer KV needs: " + spec);
    }

    @Test
    void singlePromptLogitsMatchTheReferenceAtEveryPosition() {
        assertTrue(report().maxAbsDiffSingle() <= tolerance(), "single prompt: " + report().toJson());
    }

    @Test
    void cachedDecodeMatchesTheReferenceAtEveryStep() {
        assertTrue(report().maxAbsDiffSteps() <= tolerance(), "cached decode: " + report().toJson());
    }

    @Test
    void leftPaddedBatchMatchesTheReferenceInEveryRow() {
        assertTrue(report().maxAbsDiffBatch() <= tolerance(), "left-padded batch: " + report().toJson());
    }

    @Test
    void greedyIdsDifferOnlyAtNearTies() {
        assertTrue(report().greedyPositions() > 0, "no greedy position compared: " + report().toJson());
        assertEquals(0, report().decisiveMismatches(), "greedy ids: " + report().toJson());
    }

    @Test
    void loadingThenClosingReleasesEveryTensor() {
        MemoryStats before = backend.memoryStats();
        try (RuntimeModel model = plugin().load(modelDirectory(), backend, LoadOptions.defaults().withBuffers(buffers()))) {
            assertEquals(plugin().describe(modelDirectory()).vocabSize(), model.spec().vocabSize());
        }
        assertReleased(before, "after closing the model");
    }

    @Test
    void droppedIntoAPluginsFolderItIsFoundThereAndMatchesTheReference(@TempDir Path work) throws Exception {
        Assumptions.assumeTrue(checkDropIn(), "the drop-in check is off (override checkDropIn)");
        String json = PluginDropIn.check(plugin().id(), PluginDropIn.classesOf(plugin()), modelDirectory(), work, buffers(), tolerance());
        System.out.println(modelDirectory().getFileName() + " dropped in " + json);
    }

    @TestFactory
    Stream<DynamicTest> aMissingTensorFailsTheLoadNamingIt() {
        return breaking((name, dims) -> (dir -> BrokenCheckpoint.withoutTensor(modelDirectory(), name, dir)), (name, dims, message) -> { });
    }

    @TestFactory
    Stream<DynamicTest> aTensorOfTheWrongShapeFailsTheLoadNamingExpectedAndFound() {
        return breaking((name, dims) -> (dir -> BrokenCheckpoint.withShape(modelDirectory(), name, BrokenCheckpoint.wrongShape(dims), dir)),
                (name, dims, message) -> {
                    int found = message.lastIndexOf("found");
                    int expected = message.lastIndexOf("expected", found);
                    assertTrue(expected >= 0 && found > expected, "the error should say what was expected and found: " + message);
                    assertTrue(dimsIn(dims, true).matcher(message.substring(expected, found)).find(),
                            "the error should give the expected dims " + Arrays.toString(dims) + ": " + message);
                    assertTrue(dimsIn(BrokenCheckpoint.wrongShape(dims), false).matcher(message.substring(found)).find(),
                            "the error should give the found dims " + Arrays.toString(BrokenCheckpoint.wrongShape(dims)) + ": " + message);
                });
    }

    /** How a broken copy is made in a given folder. */
    private interface Breakage {
        void writeTo(Path dir);
    }

    /** What else a failure's message must say, beyond naming the tensor. */
    private interface MessageCheck {
        void check(String tensor, int[] dims, String message);
    }

    /** One test per required weight tensor: its broken copy fails to load with a message naming it, leaking nothing. */
    private Stream<DynamicTest> breaking(BiFunction<String, int[], Breakage> breakage, MessageCheck messageCheck) {
        Map<String, int[]> tensors = BrokenCheckpoint.tensors(modelDirectory());
        Set<String> optional = optionalTensors();
        var required = tensors.entrySet().stream().filter(e -> !optional.contains(e.getKey())).toList();
        assertFalse(required.isEmpty(), "no required weight tensor in " + modelDirectory() + " (optional: " + optional + ")");
        return required.stream().map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
            Path dir = Files.createTempDirectory("panamax-model-tck-");
            try {
                breakage.apply(e.getKey(), e.getValue()).writeTo(dir);
                MemoryStats before = backend.memoryStats();
                BadModelFileException error = assertThrows(BadModelFileException.class,
                        () -> plugin().load(dir, backend, LoadOptions.defaults().withBuffers(buffers())).close(),
                        "loading the checkpoint broken at " + e.getKey());
                String message = error.getMessage();
                assertTrue(message.contains(e.getKey()), "the error should name tensor " + e.getKey() + ": " + message);
                messageCheck.check(e.getKey(), e.getValue(), message);
                assertReleased(before, "after the failed load");
            } finally {
                delete(dir);
            }
        }));
    }

    private void assertReleased(MemoryStats before, String when) {
        MemoryStats after = backend.memoryStats();
        assertEquals(before.activeBytes(), after.activeBytes(), "allocated backend bytes " + when);
        assertEquals(before.mappedBytes(), after.mappedBytes(), "mapped backend bytes " + when);
    }

    /** The dims as written in a message, {@code 64, 192} with any separators; with {@code wildcards}, {@code *} stands for any one. */
    private static Pattern dimsIn(int[] dims, boolean wildcards) {
        return Pattern.compile(Arrays.stream(dims).mapToObj(d -> "(?:\\b" + d + "\\b" + (wildcards ? "|\\*" : "") + ")")
                .collect(Collectors.joining("[^0-9*]+")));
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
