package panamax.models.parity;

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
import panamax.api.tensor.Backend;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;
import panamax.model.tck.ModelParity;

/**
 * The mixture-of-experts fixtures against their transformers references, as {@link FixtureParityTest}
 * checks the dense ones (single prompt, KV-cached greedy decode, left-padded batch; f32, identity
 * KV, max |Δlogit| ≤ {@link FixtureParityTest#TOLERANCE}, greedy ids equal): the shared
 * {@code new-families/qwen3moe-tiny} and this module's own (Mixtral in Hugging Face's per-expert
 * layout, MLX-quantized Mixtral and Qwen3-MoE in mlx-lm's stacked {@code switch_mlp} layout, Qwen2-MoE
 * with its shared expert).
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
        if (out.size() < 5) throw new AssertionError("expected the four MoE fixtures under " + own + ", found " + out);
        return out;
    }

    @TestFactory
    Stream<DynamicTest> everyMixtureOfExpertsFixtureMatchesItsReference() throws IOException, URISyntaxException {
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        return folders().stream().map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> {
            Path reference = dir.resolve("reference.safetensors");
            try (Backend backend = ModelParity.testBackend()) {
                ParityReport report = ModelParity.check(FixtureParityTest.pluginFor(registry, dir), dir, reference,
                        ParityRun.declaredBuffers(reference), KvScheme.identity(), backend);
                System.out.println(dir.getFileName() + " " + report.toJson());
                ModelParity.assertMatches(report, FixtureParityTest.TOLERANCE, dir.toString());
            }
        }));
    }
}
