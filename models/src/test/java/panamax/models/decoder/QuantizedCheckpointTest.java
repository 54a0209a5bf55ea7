package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.models.family.LlamaPlugin;
import panamax.model.support.weights.SafetensorsWriter;
import panamax.model.support.config.QuantizationConfig;

/**
 * An MLX-quantized llama-tiny (4-bit groups of 32, one module overridden to 8-bit groups of 64,
 * one kept in floats) runs through quantizedMatmul and gives the logits of a dense checkpoint
 * holding the dequantized weights.
 */
class QuantizedCheckpointTest {
    private static final String OVERRIDDEN = "model.layers.1.mlp.down_proj";
    private static final String KEPT_DENSE = "model.layers.2.self_attn.o_proj";

    private static Optional<QuantizationConfig.Setting> setting(String module) {
        if (module.equals(KEPT_DENSE) || !(module.endsWith("_proj") || module.endsWith("embed_tokens"))) return Optional.empty();
        return Optional.of(module.equals(OVERRIDDEN) ? new QuantizationConfig.Setting(64, 8) : new QuantizationConfig.Setting(32, 4));
    }

    private static String config() throws IOException {
        String c = Files.readString(Checkpoints.fixture("llama-tiny").resolve("config.json"));
        return c.replaceFirst("\\{", "{\"quantization\": {\"group_size\": 32, \"bits\": 4, \"" + OVERRIDDEN
                + "\": {\"group_size\": 64, \"bits\": 8}, \"" + KEPT_DENSE + "\": false},");
    }

    @Test
    void aQuantizedCheckpointMatchesTheDenseCheckpointOfItsDequantizedWeights(@TempDir Path tmp) throws IOException {
        try (Backend backend = Checkpoints.backend()) {
            var ops = backend.ops();
            Checkpoints.Weights w = Checkpoints.read(Checkpoints.fixture("llama-tiny"), backend);
            SafetensorsWriter quantized = new SafetensorsWriter(), dense = new SafetensorsWriter();
            for (var e : w.values().entrySet()) {
                String name = e.getKey();
                int[] shape = w.shapes().get(name);
                String module = name.substring(0, name.lastIndexOf('.'));
                Optional<QuantizationConfig.Setting> s = name.endsWith(".weight") ? setting(module) : Optional.empty();
                if (s.isEmpty()) {
                    quantized.f32(name, shape, e.getValue());
                    dense.f32(name, shape, e.getValue());
                    continue;
                }
                try (Tensor t = backend.fromFloats(e.getValue(), Shape.of(shape), DType.F32);
                     QuantizedMatrix q = ops.quantize(t, s.get().groupSize(), s.get().bits());
                     Tensor deq = ops.dequantize(q)) {
                    quantized.u32(name, q.packed().shape().dims(), backend.toInts(q.packed()));
                    quantized.f32(module + ".scales", q.scales().shape().dims(), backend.toFloats(q.scales()));
                    quantized.f32(module + ".biases", q.biases().shape().dims(), backend.toFloats(q.biases()));
                    dense.f32(name, shape, backend.toFloats(deq));
                }
            }
            Path qDir = Checkpoints.copyConfig("llama-tiny", tmp.resolve("q"), config());
            quantized.write(qDir.resolve("model.safetensors"));
            Path dDir = Checkpoints.copyConfig("llama-tiny", tmp.resolve("d"), null);
            dense.write(dDir.resolve("model.safetensors"));
            float[] q, d;
            try (RuntimeModel m = new LlamaPlugin().load(qDir, backend)) {
                q = Checkpoints.logits(m, backend, Checkpoints.PROMPT);
            }
            try (RuntimeModel m = new LlamaPlugin().load(dDir, backend)) {
                d = Checkpoints.logits(m, backend, Checkpoints.PROMPT);
            }
            double diff = Checkpoints.maxAbsDiff(q, d);
            assertTrue(diff <= 1e-4, "quantized vs dequantized-dense logits differ by " + diff);

            // the same packed weights without the quantization entry are refused, naming the tensor
            Files.writeString(qDir.resolve("config.json"), Files.readString(Checkpoints.fixture("llama-tiny").resolve("config.json")));
            BadModelFileException e = assertThrows(BadModelFileException.class, () -> new LlamaPlugin().load(qDir, backend).close());
            assertTrue(e.getMessage().contains("tensor model.embed_tokens.weight") && e.getMessage().contains("quantization"), e.getMessage());
        }
    }
}
