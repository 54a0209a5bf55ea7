package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import panamax.api.error.BadModelFileException;
import panamax.api.model.LoadOptions;
import panamax.model.support.config.HfConfig;

class Gemma3nConfigTest {
    private static HfConfig json(String text) {
        return HfConfig.parse(Path.of("config.json"), text.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(String extra) {
        return "{\"model_type\": \"gemma3n_text\", \"hidden_size\": 64, \"num_hidden_layers\": 6, \"num_attention_heads\": 4,"
                + " \"num_key_value_heads\": 2, \"head_dim\": 16, \"intermediate_size\": 128, \"vocab_size\": 512,"
                + " \"hidden_size_per_layer_input\": 16, \"sliding_window\": 8" + extra + "}";
    }

    @Test
    void donorsAreTheLastEarlierNonSharedLayerOfTheSameType() {
        // pattern s s f s s f with 3 shared: layer 3 (s) and 4 (s) read 1, layer 5 (f) reads 2
        Gemma3nConfig c = Gemma3nConfig.read(json(text(", \"num_kv_shared_layers\": 3, \"layer_types\": [\"sliding_attention\","
                + " \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\"]")),
                LoadOptions.BufferPrecision.FLOAT32);
        assertArrayEquals(new int[]{-1, -1, -1, 1, 1, 2}, c.donors());
    }

    @Test
    void defaultsFollowTransformers() {
        Gemma3nConfig c = Gemma3nConfig.read(json(text("")), LoadOptions.BufferPrecision.FLOAT32);
        // every fifth layer full; no sharing without num_kv_shared_layers; six layers are too few for default sparsity
        assertEquals(8, c.attention().get(0).window());
        assertEquals(0, c.attention().get(4).window());
        assertArrayEquals(new int[]{-1, -1, -1, -1, -1, -1}, c.donors());
        assertArrayEquals(new double[6], c.sparsity());
        assertEquals(4, c.altupStreams());
        assertEquals(30.0, c.finalSoftcap());
        assertEquals("model.", c.prefix());
        assertEquals(List.of(), c.ignoredTowers());
    }

    @Test
    void aMultimodalCheckpointReadsItsTextConfigAndNamesTheTowersItSkips() {
        Gemma3nConfig c = Gemma3nConfig.read(json("{\"model_type\": \"gemma3n\", \"text_config\": " + text("")
                + ", \"vision_config\": {\"hidden_size\": 8}, \"audio_config\": {\"hidden_size\": 8}}"), LoadOptions.BufferPrecision.FLOAT32);
        assertEquals("model.language_model.", c.prefix());
        assertEquals(List.of("vision", "audio"), c.ignoredTowers());
        assertEquals("gemma3n", c.modelType());
    }

    @Test
    void sharingThatLeavesABorrowerWithoutADonorIsRefusedByName() {
        BadModelFileException e = assertThrows(BadModelFileException.class, () -> Gemma3nConfig.read(json(text(
                ", \"num_kv_shared_layers\": 1, \"layer_types\": [\"full_attention\", \"full_attention\", \"full_attention\","
                        + " \"full_attention\", \"full_attention\", \"sliding_attention\"]")), LoadOptions.BufferPrecision.FLOAT32));
        assertTrue(e.getMessage().contains("num_kv_shared_layers") && e.getMessage().contains("sliding_attention layer before layer 5"),
                e.getMessage());
        BadModelFileException all = assertThrows(BadModelFileException.class,
                () -> Gemma3nConfig.read(json(text(", \"num_kv_shared_layers\": 6")), LoadOptions.BufferPrecision.FLOAT32));
        assertTrue(all.getMessage().contains("num_kv_shared_layers"), all.getMessage());
    }

    @Test
    void gaussianTopKUsesTheStandardNormalQuantile() {
        // Φ⁻¹ at a few points (scipy.stats.norm.ppf)
        assertEquals(1.6448536269514722, GaussianTopK.inverseNormal(0.95), 1e-15);
        assertEquals(0.0, GaussianTopK.inverseNormal(0.5), 0);
        assertEquals(-2.3263478740408408, GaussianTopK.inverseNormal(0.01), 1e-14);
        assertEquals(4.753424308822899, GaussianTopK.inverseNormal(1 - 1e-6), 1e-9);
        // torch 2.11's Normal(0, 1).icdf(torch.tensor(p)).item() for p = 0.95, 0.9, 0.8 (run on the lent GPU machine, 2026-12-02)
        assertEquals(1.6448535919189453f, new GaussianTopK(0.95).stdMultiplier());
        assertEquals(1.281551480293274f, new GaussianTopK(0.9).stdMultiplier());
        assertEquals(0.8416212797164917f, new GaussianTopK(0.8).stdMultiplier());
    }
}
