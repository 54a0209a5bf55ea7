package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.model.ModelPlugin;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.models.family.LlamaPlugin;
import panamax.models.family.MistralPlugin;
import panamax.models.family.Qwen2Plugin;
import panamax.model.support.weights.SafetensorsWriter;

/**
 * The families without a fixture of their own, checked against llama-tiny's reference-exact
 * logits: Qwen2 with zero q/k/v biases and Mistral with a window wider than the prompt must equal
 * Llama; a real bias or a narrow window must change the logits.
 */
class FamilyVariantsTest {
    private static Backend backend;
    private static Checkpoints.Weights weights;
    private static float[] llama;
    private static String llamaConfig;

    @BeforeAll
    static void readFixture() throws IOException {
        backend = Checkpoints.backend();
        weights = Checkpoints.read(Checkpoints.fixture("llama-tiny"), backend);
        llamaConfig = Files.readString(Checkpoints.fixture("llama-tiny").resolve("config.json"));
        try (RuntimeModel m = new LlamaPlugin().load(Checkpoints.fixture("llama-tiny"), backend)) {
            llama = Checkpoints.logits(m, backend, Checkpoints.PROMPT);
        }
    }

    @AfterAll
    static void close() {
        backend.close();
    }

    private static float[] logits(ModelPlugin plugin, Path dir) {
        try (RuntimeModel m = plugin.load(dir, backend)) {
            return Checkpoints.logits(m, backend, Checkpoints.PROMPT);
        }
    }

    private static Path qwen2(Path dir, float bias) throws IOException {
        Checkpoints.copyConfig("llama-tiny", dir, llamaConfig.replace("\"model_type\": \"llama\"", "\"model_type\": \"qwen2\"")
                .replace("\"attention_bias\": false,", ""));
        SafetensorsWriter w = new SafetensorsWriter();
        weights.values().forEach((n, v) -> w.bf16(n, weights.shapes().get(n), v));
        for (int i = 0; i < 3; i++) {
            for (String p : new String[]{"q", "k", "v"}) {
                int out = weights.shapes().get("model.layers." + i + ".self_attn." + p + "_proj.weight")[0];
                float[] b = new float[out];
                Arrays.fill(b, bias);
                w.bf16("model.layers." + i + ".self_attn." + p + "_proj.bias", new int[]{out}, b);
            }
        }
        w.write(dir.resolve("model.safetensors"));
        return dir;
    }

    @Test
    void qwen2WithZeroBiasesEqualsLlamaAndARealBiasMovesTheLogits(@TempDir Path tmp) throws IOException {
        // Not bit-exact: the biased projection may take another kernel whose f32 accumulation order
        // (and thread split, which follows the core count) differs; CI saw 1.5e-6 on another machine.
        double zero = Checkpoints.maxAbsDiff(llama, logits(new Qwen2Plugin(), qwen2(tmp.resolve("zero"), 0f)));
        assertTrue(zero <= 1e-5, "zero biases should not move the logits, diff " + zero);
        assertTrue(Checkpoints.maxAbsDiff(llama, logits(new Qwen2Plugin(), qwen2(tmp.resolve("half"), 0.5f))) > 1e-3);
    }

    @Test
    void mistralWithAWideWindowEqualsLlamaAndANarrowOneDiffers(@TempDir Path tmp) throws IOException {
        for (int window : new int[]{64, 4}) {
            Path dir = Checkpoints.copyConfig("llama-tiny", tmp.resolve("w" + window),
                    llamaConfig.replace("\"model_type\": \"llama\"", "\"model_type\": \"mistral\", \"sliding_window\": " + window));
            Files.copy(Checkpoints.fixture("llama-tiny").resolve("model.safetensors"), dir.resolve("model.safetensors"));
            double diff = Checkpoints.maxAbsDiff(llama, logits(new MistralPlugin(), dir));
            if (window > Checkpoints.PROMPT.length) {
                assertTrue(diff <= 1e-5, "window " + window + " covers the prompt, yet logits differ by " + diff);
            } else {
                assertTrue(diff > 1e-3, "window " + window + " should hide early tokens, diff " + diff);
                // the first `window` positions see the same keys as full attention
                int v = 512;
                assertTrue(Checkpoints.maxAbsDiff(Arrays.copyOf(llama, window * v), Arrays.copyOf(logits(new MistralPlugin(), dir), window * v)) <= 1e-5);
            }
        }
    }
}
