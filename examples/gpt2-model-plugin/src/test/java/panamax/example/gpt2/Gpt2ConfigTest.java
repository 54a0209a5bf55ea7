package panamax.example.gpt2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;

class Gpt2ConfigTest {
    private static final String OK = "{\"model_type\":\"gpt2\",\"n_embd\":64,\"n_head\":4,\"n_layer\":3,\"n_positions\":256,"
            + "\"vocab_size\":512,\"n_inner\":null,\"layer_norm_epsilon\":1e-05,\"activation_function\":\"gelu_new\"}";

    @Test
    void theFixtureConfigReadsWithDefaultInnerSize() {
        Gpt2Config c = Gpt2Config.read(Path.of(System.getProperty("panamax.fixtures", "../../../shared/fixtures")).resolve("gpt2-tiny"));
        assertEquals(64, c.hidden());
        assertEquals(256, c.inner());
        assertEquals(16, c.headDim());
        assertEquals(1e-5, c.eps());
    }

    @Test
    void badConfigsNameFileAndField(@TempDir Path dir) throws IOException {
        Map<String, String> cases = Map.of(
                OK.replace("\"gpt2\"", "\"llama\""), "field model_type",
                OK.replace("\"n_head\":4", "\"n_head\":5"), "field n_head",
                OK.replace("\"n_layer\":3", "\"n_layer\":-3"), "field n_layer",
                OK.replace("gelu_new", "relu"), "field activation_function",
                OK.replace("}", ",\"scale_attn_by_inverse_layer_idx\":true}"), "field scale_attn_by_inverse_layer_idx",
                OK.substring(0, 20), "JSON",
                OK.replace("{", "{\"n_embd\":1,"), "JSON");
        for (var e : cases.entrySet()) {
            Files.writeString(dir.resolve("config.json"), e.getKey());
            BadModelFileException ex = assertThrows(BadModelFileException.class, () -> Gpt2Config.read(dir), e.getKey());
            assertTrue(ex.getMessage().startsWith(dir.resolve("config.json") + ": " + e.getValue()), ex.getMessage());
        }
    }
}
