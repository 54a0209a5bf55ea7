package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import panamax.api.plan.KvScheme;
import panamax.api.tensor.Backend;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;
import panamax.model.tck.ModelParity;

/**
 * {@code new-families/gemma3n-tiny} and the project's {@code gemma3n-shared} (more borrowing layers,
 * prompts five times the window) against their transformers references: single-prompt logits at all
 * positions, the KV-cached greedy decode and the left-padded batched decode, with the buffers the
 * reference declares (float32), at the tolerance every family meets.
 */
class Gemma3nParityTest {

    static Path fixture() {
        Path dir = Fixtures.root().resolve("new-families/gemma3n-tiny");
        if (!Files.isRegularFile(dir.resolve("reference.safetensors"))) fail("fixture " + dir + " is missing");
        return dir;
    }

    /** The project's own reference: 4 of 10 layers borrowing, window 4, 40-token prompts (tools/gemma3n-reference). */
    static Path sharedResource() {
        try {
            var url = Gemma3nParityTest.class.getResource("/panamax/models/gemma3n-shared/reference.safetensors");
            if (url == null) fail("test resource panamax/models/gemma3n-shared is missing");
            return Path.of(url.toURI()).getParent();
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void gemma3nTinyMatchesTransformersInPrefillCachedDecodeAndPaddedBatch() {
        check(fixture());
    }

    @Test
    void moreSharedLayersAndPromptsPastTheWindowMatchTransformers() {
        check(sharedResource());
    }

    private static void check(Path dir) {
        Path reference = dir.resolve("reference.safetensors");
        try (Backend backend = ModelParity.testBackend()) {
            ParityReport report = ModelParity.check(FixtureParityTest.pluginFor(PluginRegistry.discover(Optional.empty()), dir), dir,
                    reference, ParityRun.declaredBuffers(reference), KvScheme.identity(), backend);
            System.out.println(dir.getFileName() + " " + report.toJson());
            ModelParity.assertMatches(report, FixtureParityTest.TOLERANCE, dir.toString());
        }
    }
}
