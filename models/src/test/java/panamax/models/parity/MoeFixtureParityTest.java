package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import panamax.api.plan.KvScheme;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;

/**
 * The mixture-of-experts fixtures against their transformers references, as {@link FixtureParityTest}
 * checks the dense ones (single prompt, KV-cached greedy decode, left-padded batch; f32, identity
 * KV, max |Δlogit| ≤ {@link FixtureParityTest#TOLERANCE}, greedy ids equal): the shared
 * {@code new-families/qwen3moe-tiny} and this module's own (Mixtral in Hugging Face's per-expert
 * layout, MLX-quantized Mixtral and Qwen3-MoE in mlx-lm's stacked {@code switch_mlp} layout).
 */
class MoeFixtureParityTest {

    static List<Path> folders() throws IOException, URISyntaxException {
        List<Path> out = new ArrayList<>();
        Path shared = Fixtures.root().resolve("new-families/qwen3moe-tiny");
        if (!Files.isRegularFile(shared.resolve("reference.safetensors"))) throw new AssertionError("fixture " + shared + " is missing");
        out.add(shared);
        Path own = Path.of(MoeFixtureParityTest.class.getResource("/fixtures").toURI());
        try (Stream<Path> s = Files.list(own)) {
            s.filter(p -> Files.isRegularFile(p.resolve("reference.safetensors"))).sorted().forEach(out::add);
        }
        if (out.size() < 4) throw new AssertionError("expected the three MoE fixtures under " + own + ", found " + out);
        return out;
    }

    @TestFactory
    Stream<DynamicTest> everyMixtureOfExpertsFixtureMatchesItsReference() throws IOException, URISyntaxException {
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        return folders().stream().map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> {
            Path reference = dir.resolve("reference.safetensors");
            ParityReport report = ParityRun.run(registry, dir, reference, KvScheme.identity(), Optional.of(FixtureParityTest.backend()),
                    ParityRun.declaredBuffers(reference));
            System.out.println(dir.getFileName() + " " + report.toJson());
            assertTrue(report.maxAbsDiffSingle() <= FixtureParityTest.TOLERANCE, dir + " single: " + report.toJson());
            assertTrue(report.maxAbsDiffSteps() <= FixtureParityTest.TOLERANCE, dir + " steps: " + report.toJson());
            assertTrue(report.maxAbsDiffBatch() <= FixtureParityTest.TOLERANCE, dir + " batch: " + report.toJson());
            assertEquals(0, report.decisiveMismatches(), dir + " greedy ids: " + report.toJson());
            assertTrue(report.greedyPositions() > 0);
        }));
    }
}
