package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import panamax.api.plan.KvScheme;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.api.model.LoadOptions;
import panamax.engine.plugins.PluginRegistry;
import panamax.models.hf.HfConfig;

/**
 * Every model folder of the fixtures against its reference: single-prompt logits at all positions,
 * the KV-cached greedy decode and the left-padded batched decode, on the f32 path with identity KV,
 * on the java backend unless {@code -Dpanamax.test.backend} names another.
 */
class FixtureParityTest {
    /** Max |Δlogit| the f32 path must stay under. */
    static final double TOLERANCE = 1e-4;

    /**
     * Model types whose plugin lives outside this module and runs the same check from its own test:
     * gpt2 is the third-party example {@code examples/gpt2-model-plugin} (GptParityTest there).
     */
    static final Set<String> CHECKED_ELSEWHERE = Set.of("gpt2");

    /** {@code java}, or the backend {@code -Dpanamax.test.backend=ID} names (e.g. {@code mlx}, with the same tolerance). */
    static String backend() {
        String id = System.getProperty("panamax.test.backend", "");
        return id.isBlank() ? "java" : id;
    }

    @TestFactory
    Stream<DynamicTest> everyFixtureModelMatchesItsReference() {
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        return Fixtures.modelFolders().stream().map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> {
            String modelType = HfConfig.read(dir.resolve("config.json")).string("model_type").orElse("?");
            if (CHECKED_ELSEWHERE.contains(modelType)) {
                Assumptions.abort(dir.getFileName() + " (model_type " + modelType + ") is checked by examples/gpt2-model-plugin's Gpt2DropInParityTest");
            }
            boolean known = registry.models().stream().anyMatch(p -> p.provider().modelTypes().contains(modelType));
            if (!known) fail(dir + ": no model plugin on the test path reads model_type '" + modelType + "'");
            // the shared fixtures' references come from transformers models cast to bf16 in memory
            ParityReport report = ParityRun.run(registry, dir, dir.resolve("reference.safetensors"), KvScheme.identity(), Optional.of(backend()),
                    LoadOptions.BufferPrecision.STORED_DTYPE);
            System.out.println(dir.getFileName() + " " + report.toJson());
            assertTrue(report.maxAbsDiffSingle() <= TOLERANCE, dir + " single: " + report.toJson());
            assertTrue(report.maxAbsDiffSteps() <= TOLERANCE, dir + " steps: " + report.toJson());
            assertTrue(report.maxAbsDiffBatch() <= TOLERANCE, dir + " batch: " + report.toJson());
            assertEquals(0, report.decisiveMismatches(), dir + " greedy ids: " + report.toJson());
            assertTrue(report.greedyPositions() > 0);
        }));
    }
}
