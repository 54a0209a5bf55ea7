package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import panamax.api.plan.KvScheme;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;

/**
 * {@code new-families/gemma3n-tiny} against its transformers reference: single-prompt logits at all
 * positions, the KV-cached greedy decode and the left-padded batched decode, with the buffers the
 * reference declares (float32), at the tolerance every family meets.
 */
class Gemma3nParityTest {

    static Path fixture() {
        Path dir = Fixtures.root().resolve("new-families/gemma3n-tiny");
        if (!Files.isRegularFile(dir.resolve("reference.safetensors"))) fail("fixture " + dir + " is missing");
        return dir;
    }

    @Test
    void gemma3nTinyMatchesTransformersInPrefillCachedDecodeAndPaddedBatch() {
        Path dir = fixture();
        ParityReport report = ParityRun.run(PluginRegistry.discover(Optional.empty()), dir, dir.resolve("reference.safetensors"),
                KvScheme.identity(), Optional.of(FixtureParityTest.backend()));
        System.out.println("gemma3n-tiny " + report.toJson());
        assertTrue(report.maxAbsDiffSingle() <= FixtureParityTest.TOLERANCE, "single: " + report.toJson());
        assertTrue(report.maxAbsDiffSteps() <= FixtureParityTest.TOLERANCE, "steps: " + report.toJson());
        assertTrue(report.maxAbsDiffBatch() <= FixtureParityTest.TOLERANCE, "batch: " + report.toJson());
        assertEquals(0, report.decisiveMismatches(), "greedy ids: " + report.toJson());
        assertTrue(report.greedyPositions() > 0);
    }
}
