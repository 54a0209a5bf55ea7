package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import panamax.api.error.BadModelFileException;
import panamax.api.model.ModelSpec;
import panamax.models.family.MixtralPlugin;
import panamax.models.family.Qwen2MoePlugin;
import panamax.models.family.Qwen3MoePlugin;
import panamax.model.support.config.HfConfig;
import panamax.model.support.weights.WeightFiles;

/** Which layers are sparse, how routing weights are normalized, and the parameter counts a mixture of experts declares. */
class MoeConfigTest {
    private static final String QWEN = "new-families/qwen3moe-tiny";

    private static MoeConfig read(String json, DecoderFamily family) {
        return DecoderConfig.read(HfConfig.parse(Path.of("config.json"), json.getBytes(StandardCharsets.UTF_8)), family).experts().orElseThrow();
    }

    private static String qwen(String extra) throws IOException {
        String c = Files.readString(Checkpoints.fixture(QWEN).resolve("config.json"));
        c = c.replaceAll("\"(decoder_sparse_step|mlp_only_layers|norm_topk_prob)\": [^,\\n]+,?\\n", "");
        return c.replaceFirst("\\{", "{" + extra);
    }

    @Test
    void sparseStepAndMlpOnlyLayersChooseTheSparseLayers() throws IOException {
        var family = new Qwen3MoePlugin().family();
        assertEquals(List.of(true, true, true), read(qwen(""), family).sparseLayers());
        assertEquals(List.of(false, true, false), read(qwen("\"decoder_sparse_step\": 2,"), family).sparseLayers());
        assertEquals(List.of(true, false, true), read(qwen("\"mlp_only_layers\": [1],"), family).sparseLayers());
        assertFalse(read(qwen(""), family).normalizeTopK(), "norm_topk_prob defaults to false, as in transformers");
        assertTrue(read(qwen("\"norm_topk_prob\": true,"), family).normalizeTopK());
        assertEquals(8, read(qwen("\"num_experts\": 8,"), family).experts(), "num_experts, the spelling of Qwen's own configs");
    }

    @Test
    void mixtralRoutesEveryLayerAndAlwaysRenormalizes() throws IOException {
        Path dir = Path.of("src/test/resources/fixtures/mixtral-tiny");
        MoeConfig m = read(Files.readString(dir.resolve("config.json")), new MixtralPlugin().family());
        assertEquals(List.of(true, true, true), m.sparseLayers());
        assertTrue(m.normalizeTopK());
        assertEquals(4, m.experts());
        assertEquals(2, m.topK());
        assertEquals(64, m.expertWidth());
    }

    @Test
    void moreExpertsPerTokenThanExpertsIsRefusedNamingTheField() throws IOException {
        var e = assertThrows(BadModelFileException.class, () -> read(qwen("").replace("\"num_experts_per_tok\": 2", "\"num_experts_per_tok\": 9"),
                new Qwen3MoePlugin().family()));
        assertTrue(e.getMessage().contains("num_experts_per_tok") && e.getMessage().contains("9"), e.getMessage());
        var bad = assertThrows(BadModelFileException.class, () -> read(qwen("\"mlp_only_layers\": [3],"), new Qwen3MoePlugin().family()));
        assertTrue(bad.getMessage().contains("mlp_only_layers"), bad.getMessage());
    }

    /** Parameters counted from the safetensors files themselves: every element, and the routed share of the experts'. */
    @Test
    void describeCountsAllParametersAndTheActiveOnesFromTheFiles() {
        Path dir = Checkpoints.fixture(QWEN);
        ModelSpec spec = new Qwen3MoePlugin().describe(dir);
        long total = 0, experts = 0, expertBytes = 0;
        try (Arena arena = Arena.ofConfined()) {
            WeightFiles files = WeightFiles.open(dir, arena);
            for (String name : files.names()) {
                var e = files.entry(name).orElseThrow();
                long n = e.shape().size();
                total += n;
                if (name.contains(".experts.")) {
                    experts += n;
                    expertBytes += e.byteSize();
                }
            }
        }
        assertEquals(total, spec.parameters().total());
        assertEquals(total - experts * 6 / 8, spec.parameters().activePerToken(), "top-2 of 8 experts");
        assertEquals(spec.weightBytes() - expertBytes * 6 / 8, spec.parameters().activeWeightBytes());
        assertTrue(spec.parameters().sparse());
    }

    /** The shared expert and its gate run for every token: counted as active, not as routed. */
    @Test
    void qwen2MoeCountsItsSharedExpertAsActive() throws IOException {
        Path dir = Path.of("src/test/resources/fixtures/qwen2moe-tiny");
        ModelSpec spec = new Qwen2MoePlugin().describe(dir);
        long total = 0, experts = 0, shared = 0;
        try (Arena arena = Arena.ofConfined()) {
            WeightFiles files = WeightFiles.open(dir, arena);
            for (String name : files.names()) {
                long n = files.entry(name).orElseThrow().shape().size();
                total += n;
                if (name.contains(".experts.")) experts += n;
                if (name.contains(".shared_expert")) shared += n;
            }
        }
        assertTrue(shared > 0, "the fixture has shared experts");
        assertEquals(total, spec.parameters().total());
        assertEquals(total - experts * 4 / 6, spec.parameters().activePerToken(), "top-2 of 6 routed experts, every shared one");
        MoeConfig m = read(Files.readString(dir.resolve("config.json")), new Qwen2MoePlugin().family());
        assertEquals(96, m.sharedWidth());
        assertEquals(List.of(true, true, false, true), m.sparseLayers());
        var e = assertThrows(BadModelFileException.class, () -> read(Files.readString(dir.resolve("config.json"))
                .replaceAll("\"shared_expert_intermediate_size\": \\d+,?", ""), new Qwen2MoePlugin().family()));
        assertTrue(e.getMessage().contains("shared_expert_intermediate_size"), e.getMessage());
        assertEquals(0, read(qwen(""), new Qwen3MoePlugin().family()).sharedWidth(), "Qwen3-MoE has no shared expert");
    }

    @Test
    void denseFamiliesCountEveryParameterAsActive() {
        for (String fixture : new String[]{"llama-tiny", "qwen3-tiny", "gemma3-tiny"}) {
            Path dir = Checkpoints.fixture(fixture);
            var plugin = switch (fixture) {
                case "llama-tiny" -> new panamax.models.family.LlamaPlugin();
                case "qwen3-tiny" -> new panamax.models.family.Qwen3Plugin();
                default -> new panamax.models.family.Gemma3Plugin();
            };
            ModelSpec spec = plugin.describe(dir);
            long total = 0;
            try (Arena arena = Arena.ofConfined()) {
                WeightFiles files = WeightFiles.open(dir, arena);
                for (String name : files.names()) {
                    // a tied checkpoint that also ships lm_head.weight: the loader ignores it, and so does the count
                    if (name.equals("lm_head.weight") && plugin.config(dir).tiedEmbeddings()) continue;
                    total += files.entry(name).orElseThrow().shape().size();
                }
            }
            assertEquals(total, spec.parameters().total(), fixture);
            assertEquals(total, spec.parameters().activePerToken(), fixture);
            assertEquals(spec.weightBytes(), spec.parameters().activeWeightBytes(), fixture);
        }
    }
}
