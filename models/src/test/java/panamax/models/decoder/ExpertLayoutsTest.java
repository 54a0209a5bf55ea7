package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.models.family.Qwen3MoePlugin;
import panamax.model.support.weights.SafetensorsWriter;

/**
 * The Qwen3-MoE fixture's experts rewritten in mlx-lm's stacked {@code switch_mlp} layout load to
 * the same model: stacked floats give the per-expert checkpoint's logits; stacked MLX-quantized
 * experts (made here with {@code ops.quantize}; the router at 8 bits through a per-module
 * override, the down projections kept in floats since their width 48 fits no MLX group) give the
 * logits of a per-expert checkpoint holding the dequantized weights.
 */
class ExpertLayoutsTest {
    private static final String FIXTURE = "new-families/qwen3moe-tiny";
    private static final Pattern EXPERT = Pattern.compile("(model\\.layers\\.\\d+\\.mlp)\\.experts\\.(\\d+)\\.(\\w+)\\.weight");
    private static final Pattern ROUTER = Pattern.compile("model\\.layers\\.\\d+\\.mlp\\.gate\\.weight");
    private static final int EXPERTS = 8;

    /** The fixture's tensors with each layer's experts stacked [experts, out, in]; quantized ones written packed. */
    private static void stacked(Checkpoints.Weights w, Backend backend, boolean quantize, SafetensorsWriter out, SafetensorsWriter dequantized) {
        var ops = backend.ops();
        Map<String, float[]> v = w.values();
        for (String name : v.keySet()) {
            int[] shape = w.shapes().get(name);
            Matcher m = EXPERT.matcher(name);
            boolean router = ROUTER.matcher(name).matches();
            if (m.matches()) {
                if (!m.group(2).equals("0")) continue; // stacked once, from expert 0's name
                String module = m.group(1) + ".switch_mlp." + m.group(3);
                int rows = shape[0], cols = shape[1];
                float[] all = new float[EXPERTS * rows * cols];
                for (int e = 0; e < EXPERTS; e++) {
                    String each = m.group(1) + ".experts." + e + "." + m.group(3) + ".weight";
                    System.arraycopy(v.get(each), 0, all, e * rows * cols, rows * cols);
                }
                int[] stackedShape = {EXPERTS, rows, cols};
                if (!quantize || m.group(3).equals("down_proj")) {
                    out.f32(module + ".weight", stackedShape, all);
                    for (int e = 0; e < EXPERTS; e++) {
                        String each = m.group(1) + ".experts." + e + "." + m.group(3) + ".weight";
                        dequantized.f32(each, shape, v.get(each));
                    }
                    continue;
                }
                try (Tensor t = backend.fromFloats(all, Shape.of(stackedShape), DType.F32);
                     QuantizedMatrix q = ops.quantize(t, 32, 4);
                     Tensor deq = ops.dequantize(q)) {
                    out.u32(module + ".weight", q.packed().shape().dims(), backend.toInts(q.packed()));
                    out.f32(module + ".scales", q.scales().shape().dims(), backend.toFloats(q.scales()));
                    out.f32(module + ".biases", q.biases().shape().dims(), backend.toFloats(q.biases()));
                    float[] d = backend.toFloats(deq);
                    for (int e = 0; e < EXPERTS; e++) {
                        float[] one = new float[rows * cols];
                        System.arraycopy(d, e * rows * cols, one, 0, one.length);
                        dequantized.f32(m.group(1) + ".experts." + e + "." + m.group(3) + ".weight", shape, one);
                    }
                }
            } else if (quantize && router) {
                String module = name.substring(0, name.length() - ".weight".length());
                try (Tensor t = backend.fromFloats(v.get(name), Shape.of(shape), DType.F32);
                     QuantizedMatrix q = ops.quantize(t, 64, 8);
                     Tensor deq = ops.dequantize(q)) {
                    out.u32(name, q.packed().shape().dims(), backend.toInts(q.packed()));
                    out.f32(module + ".scales", q.scales().shape().dims(), backend.toFloats(q.scales()));
                    out.f32(module + ".biases", q.biases().shape().dims(), backend.toFloats(q.biases()));
                    dequantized.f32(name, shape, backend.toFloats(deq));
                }
            } else {
                out.f32(name, shape, v.get(name));
                dequantized.f32(name, shape, v.get(name));
            }
        }
    }

    /** config.json with an MLX quantization entry: 4-bit groups of 32, routers 8-bit groups of 64, stacked down projections unquantized. */
    private static String quantizedConfig() throws IOException {
        StringBuilder q = new StringBuilder("\"quantization\": {\"group_size\": 32, \"bits\": 4");
        for (int i = 0; i < 3; i++) {
            q.append(", \"model.layers.").append(i).append(".mlp.gate\": {\"group_size\": 64, \"bits\": 8}");
            q.append(", \"model.layers.").append(i).append(".mlp.switch_mlp.down_proj\": false");
        }
        String c = Files.readString(Checkpoints.fixture(FIXTURE).resolve("config.json"));
        return c.replaceFirst("\\{", "{" + q + "},");
    }

    private static float[] logits(Path dir, Backend backend) {
        try (RuntimeModel m = new Qwen3MoePlugin().load(dir, backend)) {
            return Checkpoints.logits(m, backend, Checkpoints.PROMPT);
        }
    }

    @Test
    void stackedFloatExpertsGiveThePerExpertCheckpointsLogits(@TempDir Path tmp) throws IOException {
        try (Backend backend = Checkpoints.backend()) {
            Checkpoints.Weights w = Checkpoints.read(Checkpoints.fixture(FIXTURE), backend);
            SafetensorsWriter stacked = new SafetensorsWriter(), same = new SafetensorsWriter();
            stacked(w, backend, false, stacked, same);
            Path dir = Checkpoints.copyConfig(FIXTURE, tmp.resolve("stacked"), null);
            stacked.write(dir.resolve("model.safetensors"));
            double diff = Checkpoints.maxAbsDiff(logits(dir, backend), logits(Checkpoints.fixture(FIXTURE), backend));
            // the same values, stored f32 here and bf16 there: only the kernels' summation differs
            assertTrue(diff <= 1e-5, "stacked vs per-expert logits differ by " + diff);
        }
    }

    @Test
    void stackedQuantizedExpertsMatchTheDenseCheckpointOfTheirDequantizedWeights(@TempDir Path tmp) throws IOException {
        try (Backend backend = Checkpoints.backend()) {
            Checkpoints.Weights w = Checkpoints.read(Checkpoints.fixture(FIXTURE), backend);
            SafetensorsWriter quantized = new SafetensorsWriter(), dense = new SafetensorsWriter();
            stacked(w, backend, true, quantized, dense);
            Path qDir = Checkpoints.copyConfig(FIXTURE, tmp.resolve("q"), quantizedConfig());
            quantized.write(qDir.resolve("model.safetensors"));
            Path dDir = Checkpoints.copyConfig(FIXTURE, tmp.resolve("d"), null);
            dense.write(dDir.resolve("model.safetensors"));
            float[] q = logits(qDir, backend), d = logits(dDir, backend);
            double diff = Checkpoints.maxAbsDiff(q, d);
            assertTrue(diff <= 1e-4, "quantized stacked vs dequantized per-expert logits differ by " + diff);
            // and the quantization is real: the original weights give other logits
            assertTrue(Checkpoints.maxAbsDiff(q, logits(Checkpoints.fixture(FIXTURE), backend)) > 1e-3);

            // packed experts without their quantization entry are refused, naming the tensor
            Files.writeString(qDir.resolve("config.json"), Files.readString(Checkpoints.fixture(FIXTURE).resolve("config.json")));
            BadModelFileException e = assertThrows(BadModelFileException.class, () -> new Qwen3MoePlugin().load(qDir, backend).close());
            assertTrue(e.getMessage().contains("quantization"), e.getMessage());
        }
    }

    @Test
    void aMissingExpertIsNamed(@TempDir Path tmp) throws IOException {
        try (Backend backend = Checkpoints.backend()) {
            Checkpoints.Weights w = Checkpoints.read(Checkpoints.fixture(FIXTURE), backend);
            SafetensorsWriter out = new SafetensorsWriter();
            w.values().forEach((name, v) -> {
                if (!name.equals("model.layers.1.mlp.experts.5.up_proj.weight")) out.f32(name, w.shapes().get(name), v);
            });
            Path dir = Checkpoints.copyConfig(FIXTURE, tmp.resolve("m"), null);
            out.write(dir.resolve("model.safetensors"));
            BadModelFileException e = assertThrows(BadModelFileException.class, () -> new Qwen3MoePlugin().load(dir, backend).close());
            assertTrue(e.getMessage().contains("model.layers.1.mlp.experts.5.up_proj.weight"), e.getMessage());
        }
    }
}
