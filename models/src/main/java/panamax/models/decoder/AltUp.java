package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.model.support.blocks.Linear;
import panamax.model.support.weights.Loaded;
import panamax.model.support.weights.WeightSource;

/**
 * Gemma 3n's Alternating Updates block: the layer computes on one of {@code n} parallel hidden
 * streams; {@link #predict} mixes the streams into each stream's prediction beforehand and
 * {@link #correct} spreads the layer's update (the "innovation") back to all of them, both with
 * per-token coefficients routed from the active stream. Owns its weights. Thread-safe.
 */
final class AltUp implements AutoCloseable {
    private final int streams;
    private final int active;
    private final double eps;
    private final double routerScale;
    private final Tensor routerNorm;         // (hidden)
    private final Linear router;             // (streams, hidden)
    private final Linear predictionCoefs;    // (streams², streams)
    private final Linear correctionCoefs;    // (streams, streams)
    private final Tensor correctOutputScale; // (hidden)

    AltUp(int streams, int active, double eps, double routerScale, Tensor routerNorm, Linear router, Linear predictionCoefs,
          Linear correctionCoefs, Tensor correctOutputScale) {
        this.streams = streams;
        this.active = active;
        this.eps = eps;
        this.routerScale = routerScale;
        this.routerNorm = routerNorm;
        this.router = router;
        this.predictionCoefs = predictionCoefs;
        this.correctionCoefs = correctionCoefs;
        this.correctOutputScale = correctOutputScale;
    }

    /** Loads {@code prefix}{@code altup.*}. */
    static AltUp load(WeightSource w, String prefix, Gemma3nConfig c) {
        int n = c.altupStreams();
        List<AutoCloseable> loaded = new ArrayList<>();
        try {
            Tensor norm = Loaded.track(loaded, w.norm(prefix + "router_norm.weight", c.hidden(), false));
            Linear router = Loaded.track(loaded, w.linear(prefix + "modality_router", n, c.hidden(), false));
            Linear prediction = Loaded.track(loaded, w.linear(prefix + "prediction_coefs", n * n, n, false));
            Linear correction = Loaded.track(loaded, correction(w, prefix + "correction_coefs.weight", n, c.altupCoefClip()));
            Tensor scale = Loaded.track(loaded, w.vector(prefix + "correct_output_scale", c.hidden()));
            return new AltUp(n, c.altupActive(), c.normEps(), c.routerInputScale(), norm, router, prediction, correction, scale);
        } catch (RuntimeException e) {
            throw Loaded.closeAll(loaded, e);
        }
    }

    /**
     * The correction coefficients {@code [streams, streams]}, clamped to {@code ±clip} when positive:
     * transformers clamps them in {@code correct()} at inference too (the prediction coefficients only in training).
     */
    private static Linear correction(WeightSource w, String name, int n, double clip) {
        Tensor stored = w.matrix(name, n, n);
        if (!(clip > 0)) return Linear.dense(stored, null);
        var ops = w.ops();
        try (stored; Tensor f = ops.astype(stored, DType.F32); Tensor low = ops.binary(BinaryOp.MAXIMUM, f, -clip)) {
            return Linear.dense(ops.binary(BinaryOp.MINIMUM, low, clip), null);
        }
    }

    /** Per token, {@code tanh(router(norm(x)·scale))}: f32 {@code [B, T, streams]}. */
    private Tensor modalities(Ops ops, Tensor x) {
        try (Tensor normed = ops.rmsNorm(x, routerNorm, eps);
             Tensor scaled = ops.mul(normed, routerScale);
             Tensor routed = router.apply(ops, scaled)) {
            return ops.unary(UnaryOp.TANH, routed);
        }
    }

    /**
     * Each stream's prediction: {@code p_j = x_j + Σ_i c_ji·x_i} with {@code c = prediction_coefs(modalities(x_active))}
     * reshaped {@code [streams, streams]}. Returns new tensors; {@code x} is borrowed.
     */
    List<Tensor> predict(Ops ops, List<Tensor> x) {
        List<Tensor> out = new ArrayList<>(streams);
        try (Tensor m = modalities(ops, x.get(active));
             Tensor coefs = predictionCoefs.apply(ops, m)) {
            for (int j = 0; j < streams; j++) {
                Tensor acc = ops.copy(x.get(j));
                for (int i = 0; i < streams; i++) {
                    try (Tensor cji = ops.slice(coefs, 2, j * streams + i, j * streams + i + 1);
                         Tensor term = ops.mul(x.get(i), cji);
                         Tensor prev = acc) {
                        acc = ops.add(prev, term);
                    }
                }
                out.add(acc);
            }
            return out;
        } catch (RuntimeException e) {
            out.forEach(Tensor::close);
            throw e;
        }
    }

    /**
     * The corrected streams: {@code p_i + (activated − p_active)·(1 + correction_coefs(modalities(activated))_i)}.
     * Returns new tensors; the arguments are borrowed.
     */
    List<Tensor> correct(Ops ops, List<Tensor> predictions, Tensor activated) {
        List<Tensor> out = new ArrayList<>(streams);
        try (Tensor m = modalities(ops, activated);
             Tensor raw = correctionCoefs.apply(ops, m);
             Tensor coefs = ops.add(raw, 1.0);
             Tensor innovation = ops.sub(activated, predictions.get(active))) {
            for (int i = 0; i < streams; i++) {
                try (Tensor ci = ops.slice(coefs, 2, i, i + 1);
                     Tensor update = ops.mul(innovation, ci)) {
                    out.add(ops.add(predictions.get(i), update));
                }
            }
            return out;
        } catch (RuntimeException e) {
            out.forEach(Tensor::close);
            throw e;
        }
    }

    /** {@code x · correct_output_scale}. */
    Tensor scaleCorrected(Ops ops, Tensor x) {
        return ops.mul(x, correctOutputScale);
    }

    @Override
    public void close() {
        routerNorm.close();
        router.close();
        predictionCoefs.close();
        correctionCoefs.close();
        correctOutputScale.close();
    }
}
