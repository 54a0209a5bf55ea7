package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.api.plan.KvScheme;
import panamax.api.tensor.Backend;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;
import panamax.model.support.config.HfConfig;
import panamax.model.tck.ModelParity;

/**
 * Every model folder of the fixtures against its reference: single-prompt logits at all positions,
 * the KV-cached greedy decode and the left-padded batched decode, on the f32 path with identity KV,
 * on the java backend unless {@code -Dpanamax.test.backend} names another: the model kit's check
 * ({@link ModelParity}), with each folder's plugin found by its {@code model_type}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FixtureParityTest {
    /** Max |Δlogit| the f32 path must stay under. */
    static final double TOLERANCE = ModelParity.TOLERANCE;

    private Backend backend;

    @BeforeAll
    void startBackend() {
        backend = ModelParity.testBackend();
    }

    @AfterAll
    void stopBackend() {
        if (backend != null) backend.close();
    }

    /**
     * Model types whose plugin lives outside this module and runs the same check from its own test:
     * gpt2 is the third-party example {@code examples/gpt2-model-plugin} (Gpt2PluginTest there).
     */
    static final Set<String> CHECKED_ELSEWHERE = Set.of("gpt2");

    /** {@code java}, or the backend {@code -Dpanamax.test.backend=ID} names (e.g. {@code mlx}, with the same tolerance). */
    static String backend() {
        String id = System.getProperty("panamax.test.backend", "");
        return id.isBlank() ? "java" : id;
    }

    /** The plugin of the test path that reads {@code dir}'s {@code model_type}; a failure when none does. */
    static ModelPlugin pluginFor(PluginRegistry registry, Path dir) {
        String modelType = HfConfig.read(dir.resolve("config.json")).string("model_type").orElse("?");
        return registry.models().stream().filter(p -> p.provider().modelTypes().contains(modelType)).findFirst()
                .orElseThrow(() -> new AssertionError(dir + ": no model plugin on the test path reads model_type '" + modelType + "'"))
                .provider();
    }

    @TestFactory
    Stream<DynamicTest> everyFixtureModelMatchesItsReference() {
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        return Fixtures.modelFolders().stream().map(dir -> DynamicTest.dynamicTest(Fixtures.root().relativize(dir).toString(), () -> {
            String modelType = HfConfig.read(dir.resolve("config.json")).string("model_type").orElse("?");
            if (CHECKED_ELSEWHERE.contains(modelType)) {
                Assumptions.abort(dir.getFileName() + " (model_type " + modelType + ") is checked by examples/gpt2-model-plugin's Gpt2PluginTest (the model kit)");
            }
            // the root's references come from transformers models cast to bf16 in memory; new-families/ declare
            // theirs in reference.json (exact float32 buffers: the files loaded as a user loads them)
            Path reference = dir.resolve("reference.safetensors");
            LoadOptions.BufferPrecision buffers = Fixtures.isNewFamily(dir) ? ParityRun.declaredBuffers(reference)
                    : LoadOptions.BufferPrecision.STORED_DTYPE;
            ParityReport report = ModelParity.check(pluginFor(registry, dir), dir, reference, buffers, KvScheme.identity(), backend);
            System.out.println("[" + Fixtures.vectorWidth() + "] " + dir.getFileName() + " " + report.toJson());
            ModelParity.assertMatches(report, TOLERANCE, dir + " at " + Fixtures.vectorWidth());
        }));
    }

    /**
     * The quantized-KV path (affine 4 bits, groups of 32; what {@code panamax parity --kv-bits 4
     * --kv-group-size 32} runs, see app's ParityCommandTest) moves the logits, within bounds. Measured
     * on qwen3-tiny (random weights, logits of std ≈ 1): max |Δlogit| 0.637 single, 0.563 steps, 0.804
     * batch; greedy match 0.857, no decisive mismatch. Bounds: 1.2 on each (1.5× the largest), a greedy
     * match of at least 0.7. Deterministic arithmetic: the margin is for rounding that differs between
     * vector widths and CPUs, not chance.
     */
    @Test
    void fourBitKvMovesTheLogitsWithinABound() {
        Path dir = Fixtures.root().resolve("qwen3-tiny"); // head dim 32: affine groups of 32 fit
        KvScheme kv4 = new KvScheme("affine", Map.of("bits", "4", "group_size", "32"), OptionalInt.empty(), OptionalInt.empty(), Optional.empty());
        Path reference = dir.resolve("reference.safetensors");
        ParityReport report = ModelParity.check(pluginFor(PluginRegistry.discover(Optional.empty()), dir), dir, reference,
                ParityRun.declaredBuffers(reference), kv4, backend);
        System.out.println("[" + Fixtures.vectorWidth() + "] qwen3-tiny 4-bit KV " + report.toJson());
        String at = " at " + Fixtures.vectorWidth() + ": ";
        assertTrue(report.maxAbsDiffSingle() > TOLERANCE, "4-bit KV should move the logits" + at + report.toJson());
        assertTrue(report.maxAbsDiffSingle() <= KV4_BOUND, "single" + at + report.toJson());
        assertTrue(report.maxAbsDiffSteps() <= KV4_BOUND, "steps" + at + report.toJson());
        assertTrue(report.maxAbsDiffBatch() <= KV4_BOUND, "batch" + at + report.toJson());
        assertTrue(report.greedyMatch() >= 0.7, "greedy match" + at + report.toJson());
    }

    /** A vector-width run ({@code panamax.test.vector.bits}) runs the backend's kernels no wider than it says. */
    @Test
    void runsNoWiderThanItsVectorWidthRunSays() throws ReflectiveOperationException {
        Object species = Class.forName("jdk.incubator.vector.FloatVector").getField("SPECIES_PREFERRED").get(null);
        int bits = (int) Class.forName("jdk.incubator.vector.VectorSpecies").getMethod("vectorBitSize").invoke(species);
        System.out.println("[vectors] fixture parity at " + Fixtures.vectorWidth());
        assertTrue(bits >= 64 && Integer.bitCount(bits) == 1, "preferred species " + species);
        String limit = System.getProperty("panamax.test.vector.bits", "");
        if (!limit.isBlank()) assertTrue(bits <= Integer.parseInt(limit.strip()), "a run limited to " + limit + " bits runs " + species);
    }

    /** Max |Δlogit| of 4-bit KV on qwen3-tiny (see {@link #fourBitKvMovesTheLogitsWithinABound}). */
    static final double KV4_BOUND = 1.2;
}
