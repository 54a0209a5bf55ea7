package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.models.family.Qwen3MoePlugin;
import panamax.model.support.config.HfConfig;
import panamax.model.support.weights.WeightFiles;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Mlp;
import panamax.model.support.weights.WeightSource;

/**
 * The sparse block groups tokens by expert without changing any token's result, and computes
 * only the experts a token is routed to.
 */
class SparseMoeTest {

    private static float[] random(Random r, int n, double scale) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) (r.nextGaussian() * scale);
        return v;
    }

    @Test
    void groupedByExpertEqualsEachTokenRoutedAlone() {
        var plugin = new Qwen3MoePlugin();
        var dir = Checkpoints.fixture("new-families/qwen3moe-tiny");
        DecoderConfig c = DecoderConfig.read(HfConfig.read(dir.resolve("config.json")), plugin.family());
        try (Backend backend = Checkpoints.backend(); Arena arena = Arena.ofShared()) {
            var ops = backend.ops();
            try (DecoderWeights w = DecoderWeights.load(c, new WeightSource(WeightFiles.open(dir, arena), backend, c.quantization()))) {
                int checked = 0;
                for (LayerWeights layer : w.layers()) {
                    SparseMoe moe = layer.experts();
                    int b = 3, t = 7, h = c.hidden();
                    float[] x = random(new Random(checked), b * t * h, 1.0);
                    float[] grouped;
                    try (Tensor xt = backend.fromFloats(x, Shape.of(b, t, h), DType.F32);
                         Tensor y = moe.apply(backend, UnaryOp.SILU, xt)) {
                        grouped = backend.toFloats(y);
                        Routing routing = moe.route(backend, xt);
                        assertTrue(Arrays.stream(routing.group(moe.experts()).start()).distinct().count() > 3, "tokens spread over several experts");
                    }
                    for (int token = 0; token < b * t; token++) {
                        float[] one = Arrays.copyOfRange(x, token * h, (token + 1) * h);
                        try (Tensor xt = backend.fromFloats(one, Shape.of(1, 1, h), DType.F32);
                             Tensor y = moe.apply(backend, UnaryOp.SILU, xt)) {
                            float[] alone = backend.toFloats(y);
                            for (int i = 0; i < h; i++) assertEquals(alone[i], grouped[token * h + i], 1e-6, "token " + token + " feature " + i);
                            checked++;
                        }
                    }
                }
                assertEquals(3 * 21, checked);
            }
        }
    }

    @Test
    void unroutedExpertsAreNeverComputed() {
        int hidden = 16, width = 8, experts = 4;
        Random r = new Random(7);
        try (Backend backend = Checkpoints.backend()) {
            float[] x = random(r, 5 * hidden, 1.0);
            float[][] weights = new float[experts * 3][];
            for (int i = 0; i < weights.length; i++) weights[i] = random(r, width * hidden, 0.3);
            // expert 3 holds NaNs: a dense loop over all experts (even weighted by zero) would spread them
            float[] poisoned = new float[width * hidden];
            Arrays.fill(poisoned, Float.NaN);
            Routing routing = new Routing(5, 2, new int[]{0, 1, 2, 0, 1, 2, 0, 2, 1, 0}, new float[]{.6f, .4f, .7f, .3f, .5f, .5f, .9f, .1f, .8f, .2f});
            float[] withNaN = run(backend, weights, poisoned, x, routing, hidden, width);
            float[] withFinite = run(backend, weights, weights[0], x, routing, hidden, width);
            for (int i = 0; i < withNaN.length; i++) {
                assertTrue(Float.isFinite(withNaN[i]), "output " + i + " is " + withNaN[i]);
                assertEquals(withFinite[i], withNaN[i], 0.0);
            }
        }
    }

    private static float[] run(Backend backend, float[][] w, float[] expert3Gate, float[] x, Routing routing, int hidden, int width) {
        List<Mlp> experts = new ArrayList<>();
        for (int e = 0; e < 4; e++) {
            float[] gate = e == 3 ? expert3Gate : w[3 * e];
            float[] down = new float[hidden * width];
            System.arraycopy(w[3 * e + 2], 0, down, 0, down.length);
            experts.add(Mlp.gated(
                    Linear.dense(backend.fromFloats(gate, Shape.of(width, hidden), DType.F32), null),
                    Linear.dense(backend.fromFloats(w[3 * e + 1], Shape.of(width, hidden), DType.F32), null),
                    Linear.dense(backend.fromFloats(down, Shape.of(hidden, width), DType.F32), null)));
        }
        Linear router = Linear.dense(backend.fromFloats(new float[4 * hidden], Shape.of(4, hidden), DType.F32), null);
        try (SparseMoe moe = new SparseMoe(router, experts, List.of(), 2, true);
             Tensor xt = backend.fromFloats(x, Shape.of(1, 5, hidden), DType.F32);
             Tensor y = moe.apply(backend, UnaryOp.SILU, xt, routing)) {
            return backend.toFloats(y);
        }
    }
}
