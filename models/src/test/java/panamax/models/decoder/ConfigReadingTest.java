package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.api.tensor.RopeSpec;
import panamax.api.model.LoadOptions;
import panamax.models.family.Gemma3Plugin;
import panamax.models.family.MistralPlugin;
import panamax.models.family.Qwen2Plugin;
import panamax.model.support.config.GenerationConfig;
import panamax.model.support.config.HfConfig;

class ConfigReadingTest {
    private static final Path CONFIG = Path.of("config.json");

    private static DecoderConfig read(String json, DecoderFamily family) {
        return DecoderConfig.read(HfConfig.parse(CONFIG, json.getBytes(StandardCharsets.UTF_8)), family, LoadOptions.BufferPrecision.STORED_DTYPE);
    }

    private static String gemma() throws IOException {
        return Files.readString(Checkpoints.fixture("gemma3-tiny").resolve("config.json"));
    }

    /** The fixture's Gemma 3 config rewritten in the classic spelling. */
    private static String classicGemma() throws IOException {
        String c = gemma();
        int from = c.indexOf("\"layer_types\""), to = c.indexOf("],", from) + 2;
        c = c.substring(0, from) + c.substring(to);
        from = c.indexOf("\"rope_parameters\"");
        to = c.indexOf("\"sliding_window\"");
        return c.substring(0, from) + "\"rope_theta\": 1000000.0, \"rope_local_base_freq\": 10000.0, \"sliding_window_pattern\": 6, "
                + c.substring(to);
    }

    private static void assertSameRope(RopeSpec a, RopeSpec b) {
        assertEquals(a.dims(), b.dims());
        assertEquals(a.scale(), b.scale());
        assertArrayEquals(a.frequencies().orElseThrow(), b.frequencies().orElseThrow());
    }

    @Test
    void classicAndNewGemmaSpellingsGiveTheSameLayers() throws IOException {
        DecoderConfig modern = read(gemma(), new Gemma3Plugin().family());
        DecoderConfig classic = read(classicGemma(), new Gemma3Plugin().family());
        assertFalse(classicGemma().contains("layer_types"));
        assertEquals(6, modern.attention().size());
        for (int i = 0; i < 6; i++) {
            assertEquals(i == 5 ? 0 : 8, modern.attention().get(i).window(), "layer " + i);
            assertEquals(modern.attention().get(i).window(), classic.attention().get(i).window());
            assertSameRope(modern.attention().get(i).rope(), classic.attention().get(i).rope());
        }
        // sliding layers rotate with the local base, the full layer with rope_theta
        assertTrue(modern.attention().get(0).rope().frequencies().get()[1] > modern.attention().get(5).rope().frequencies().get()[1]);
        assertEquals(1.0 / Math.sqrt(16), modern.attentionScale());
        assertEquals(8.0, modern.embeddingScale());
        // HF keeps √hidden in a buffer cast with a bf16 model: √1152 = 33.94 becomes 34
        assertEquals(34.0, read(gemma().replace("\"hidden_size\": 64", "\"hidden_size\": 1152"), new Gemma3Plugin().family()).embeddingScale());
        // ... while from_pretrained's float32 buffers (the default) keep it exact
        assertEquals((float) Math.sqrt(1152), DecoderConfig.read(HfConfig.parse(CONFIG, gemma().replace("\"hidden_size\": 64", "\"hidden_size\": 1152")
                .getBytes(StandardCharsets.UTF_8)), new Gemma3Plugin().family()).embeddingScale(), 1e-6);
    }

    @Test
    void classicGemmaConfigGivesTheSameLogits(@TempDir Path tmp) throws IOException {
        Path dir = Checkpoints.copyConfig("gemma3-tiny", tmp, classicGemma());
        Files.copy(Checkpoints.fixture("gemma3-tiny").resolve("model.safetensors"), dir.resolve("model.safetensors"));
        try (Backend backend = Checkpoints.backend();
             RuntimeModel modern = new Gemma3Plugin().load(Checkpoints.fixture("gemma3-tiny"), backend);
             RuntimeModel classic = new Gemma3Plugin().load(dir, backend)) {
            assertEquals(0.0, Checkpoints.maxAbsDiff(Checkpoints.logits(modern, backend, Checkpoints.PROMPT),
                    Checkpoints.logits(classic, backend, Checkpoints.PROMPT)));
        }
    }

    @Test
    void describeMarksSlidingLayersForThePlanner() {
        ModelSpec gemma = new Gemma3Plugin().describe(Checkpoints.fixture("gemma3-tiny"));
        assertEquals(List.of(true, true, true, true, true, false), gemma.layers().stream().map(LayerKvNeed::isSliding).toList());
        assertEquals(8, gemma.layers().get(0).window());
        assertEquals(1, gemma.layers().get(0).kvHeads());
        assertEquals(16, gemma.layers().get(0).headDim());
    }

    @Test
    void mistralSlidesOnEveryLayerWhenItHasAWindow(@TempDir Path tmp) throws IOException {
        String llama = Files.readString(Checkpoints.fixture("llama-tiny").resolve("config.json"));
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, llama.replace("\"model_type\": \"llama\"", "\"model_type\": \"mistral\", \"sliding_window\": 32"));
        assertTrue(new MistralPlugin().describe(dir).layers().stream().allMatch(l -> l.window() == 32));
        Files.writeString(dir.resolve("config.json"), llama.replace("\"model_type\": \"llama\"", "\"model_type\": \"mistral\", \"sliding_window\": null"));
        assertTrue(new MistralPlugin().describe(dir).layers().stream().noneMatch(LayerKvNeed::isSliding));
    }

    @Test
    void qwen2HasQkvBiasesByDefaultAndQwen3DecouplesHeadDim() throws IOException {
        String llama = Files.readString(Checkpoints.fixture("llama-tiny").resolve("config.json")).replace("\"attention_bias\": false,", "");
        DecoderConfig qwen2 = read(llama.replace("\"llama\"", "\"qwen2\""), new Qwen2Plugin().family());
        assertTrue(qwen2.qkvBias());
        assertFalse(qwen2.outputBias());
        DecoderConfig qwen3 = read(Files.readString(Checkpoints.fixture("qwen3-tiny").resolve("config.json")),
                new panamax.models.family.Qwen3Plugin().family());
        assertEquals(32, qwen3.headDim());
        assertEquals(64 / 4, qwen3.hidden() / qwen3.heads());
        assertTrue(qwen3.tiedEmbeddings());
    }

    @Test
    void llama3RopeScalingKeepsHighFrequenciesAndDividesLowOnes() {
        String json = "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_hidden_layers\":1,\"num_attention_heads\":2,"
                + "\"intermediate_size\":8,\"vocab_size\":8,\"rope_theta\":500000.0,\"rope_scaling\":{\"rope_type\":\"llama3\",\"factor\":8.0,"
                + "\"low_freq_factor\":1.0,\"high_freq_factor\":4.0,\"original_max_position_embeddings\":8192}}";
        DecoderFamily llama = new panamax.models.family.LlamaPlugin().family();
        RopeSpec rope = read(json, llama).attention().get(0).rope();
        float[] f = rope.frequencies().orElseThrow();
        assertEquals(64, f.length);
        for (int i = 0; i < f.length; i++) {
            double plain = 1.0 / Math.pow(500000.0, 2.0 * i / 128);
            double wavelen = 2 * Math.PI / plain;
            if (wavelen < 8192 / 4.0) assertEquals(plain, f[i], plain * 1e-6, "high frequency " + i + " unchanged");
            else if (wavelen > 8192 / 1.0) assertEquals(plain / 8, f[i], plain * 1e-6, "low frequency " + i + " divided by factor");
            else assertTrue(f[i] < plain && f[i] > plain / 8, "medium frequency " + i + " blended");
        }
    }

    @Test
    void badValuesAreRejectedNamingFileAndField() {
        String base = "{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,\"intermediate_size\":8,\"vocab_size\":8";
        DecoderFamily llama = new panamax.models.family.LlamaPlugin().family();
        String[][] cases = {
                {base + "}", null},
                {base.replace("\"hidden_size\":64,", "") + "}", "field hidden_size"},
                {base + ",\"num_key_value_heads\":3}", "field num_key_value_heads"},
                {base + ",\"rope_scaling\":{\"rope_type\":\"yarn\",\"factor\":2}}", "field rope_scaling.rope_type"},
                {base + ",\"layer_types\":[\"full_attention\"]}", "field layer_types"},
                {base + ",\"layer_types\":[\"full_attention\",\"sliding_attention\"]}", "field sliding_window"},
                {base + ",\"quantization\":{\"group_size\":48,\"bits\":4}}", "field quantization.group_size"},
                {base + ",\"rms_norm_eps\":\"tiny\"}", "field rms_norm_eps"},
        };
        for (String[] c : cases) {
            if (c[1] == null) {
                read(c[0], llama);
                continue;
            }
            BadModelFileException e = assertThrows(BadModelFileException.class, () -> read(c[0], llama), c[0]);
            assertTrue(e.getMessage().startsWith("config.json: " + c[1]), e.getMessage());
        }
    }

    @Test
    void eosIdsComeFromGenerationConfigThenConfig(@TempDir Path tmp) throws IOException {
        assertArrayEquals(new int[]{2}, GenerationConfig.read(Checkpoints.fixture("llama-tiny")).eosTokenIds());
        Files.writeString(tmp.resolve("config.json"), "{\"eos_token_id\": [1, 7]}");
        assertArrayEquals(new int[]{1, 7}, GenerationConfig.read(tmp).eosTokenIds());
        Files.writeString(tmp.resolve("generation_config.json"), "{\"eos_token_id\": 9, \"temperature\": 0.6}");
        GenerationConfig g = GenerationConfig.read(tmp);
        assertArrayEquals(new int[]{9}, g.eosTokenIds());
        assertEquals(0.6, g.temperature().getAsDouble());
    }
}
