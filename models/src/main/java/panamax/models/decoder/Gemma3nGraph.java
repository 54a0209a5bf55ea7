package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import panamax.api.kv.KvCapture;
import panamax.api.kv.KvLayout;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.KvState;
import panamax.api.model.LogitSelection;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Reduction;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.model.support.blocks.Attention;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.LogitHead;

/**
 * Gemma 3n's text decoder. The embedding is widened into AltUp streams; each layer predicts the
 * streams, runs attention (+ LAuReL) and a GELU-tanh MLP (Gaussian top-k sparse on the first layers)
 * on the active one, corrects the streams and adds its per-layer input to the others; the streams
 * are merged back before the final norm. A layer with a KV donor computes only queries and attends
 * over the donor's cache through a {@link KvCapture} taken right after the donor appended, so it
 * never appends or stores anything itself. Borrows its weights. Not thread-safe per KV state.
 */
final class Gemma3nGraph implements AutoregressiveGraph {
    /** Floor of the squared magnitude when AltUp streams are rescaled (transformers' {@code epsilon_tensor}). */
    private static final double MAGNITUDE_FLOOR = 1e-5;
    /** Attention scores are not scaled: q and k are RMS-normalized per head. */
    private static final double ATTENTION_SCALE = 1.0;

    private final Gemma3nConfig config;
    private final Gemma3nWeights weights;
    private final Backend backend;
    private final Ops ops;
    private final boolean[] lends;

    Gemma3nGraph(Gemma3nConfig config, Gemma3nWeights weights, Backend backend) {
        this.config = config;
        this.weights = weights;
        this.backend = backend;
        this.ops = backend.ops();
        this.lends = new boolean[config.layers()];
        for (int d : config.donors()) if (d >= 0) lends[d] = true;
    }

    /** Per forward pass: the donors' captures and the RoPE offsets their queries started at. */
    private static final class Sharing implements AutoCloseable {
        final KvCapture[] captures;
        final int[][] offsets;

        Sharing(int layers) {
            captures = new KvCapture[layers];
            offsets = new int[layers][];
        }

        @Override
        public void close() {
            for (KvCapture c : captures) if (c != null) c.close();
        }
    }

    @Override
    public Tensor forwardHidden(Tensor ids, KvState state) {
        if (ids.rank() != 2) throw new IllegalArgumentException("ids: expected [B, T], found " + ids.shape());
        if (state.layers() != config.layers()) {
            throw new IllegalArgumentException("KV state has " + state.layers() + " layers, the model " + config.layers());
        }
        List<Tensor> streams = new ArrayList<>();
        try (Sharing sharing = new Sharing(config.layers());
             Tensor embeds = weights.embedding().lookup(ops, ids, config.embeddingScale());
             Tensor perLayer = perLayerInputs(ids, embeds)) {
            streams.addAll(expand(embeds));
            for (int i = 0; i < config.layers(); i++) {
                List<Tensor> next = layer(i, streams, perLayer, state, sharing);
                streams.forEach(Tensor::close);
                streams.clear();
                streams.addAll(next);
            }
            try (Tensor merged = collapse(streams)) {
                return ops.rmsNorm(merged, weights.finalNorm(), config.normEps());
            }
        } finally {
            streams.forEach(Tensor::close);
        }
    }

    /** Every layer's input {@code [B, T, layers, perLayerHidden]}: its own embedding plus a normalized projection of the token embedding. */
    private Tensor perLayerInputs(Tensor ids, Tensor embeds) {
        int b = ids.dim(0), t = ids.dim(1);
        Shape split = Shape.of(b, t, config.layers(), config.perLayerHidden());
        try (Tensor clamped = perLayerIds(ids);
             Tensor looked = weights.perLayerEmbedding().lookup(ops, clamped, config.perLayerEmbeddingScale());
             Tensor own = ops.reshape(looked, split);
             Tensor projected = weights.perLayerProjection().apply(ops, embeds);
             Tensor scaled = ops.mul(projected, config.perLayerProjectionScale());
             Tensor shaped = ops.reshape(scaled, split);
             Tensor normed = ops.rmsNorm(shaped, weights.perLayerNorm(), config.normEps());
             Tensor sum = ops.add(normed, own)) {
            return ops.mul(sum, config.perLayerInputScale());
        }
    }

    /** Ids without a per-layer embedding (multimodal ids past {@code vocab_size_per_layer_input}) read id 0, as transformers does. */
    private Tensor perLayerIds(Tensor ids) {
        if (config.perLayerVocab() >= config.vocab()) return ops.copy(ids);
        try (Tensor limit = ops.full(Shape.of(1), config.perLayerVocab(), ids.dtype());
             Tensor zero = ops.zeros(Shape.of(1), ids.dtype());
             Tensor inRange = ops.compare(Comparison.LESS, ids, limit)) {
            return ops.where(inRange, ids, zero);
        }
    }

    /** The AltUp streams: the embedding, then each projection rescaled to the embedding's RMS magnitude. */
    private List<Tensor> expand(Tensor embeds) {
        List<Tensor> out = new ArrayList<>();
        out.add(ops.copy(embeds));
        try (Tensor target = magnitude(embeds, false)) {
            for (Linear projection : weights.altUpProjections()) out.add(rescaled(projection, embeds, target));
            return out;
        } catch (RuntimeException e) {
            out.forEach(Tensor::close);
            throw e;
        }
    }

    /** The streams merged back: stream 0, the others un-projected and rescaled to its magnitude, averaged. */
    private Tensor collapse(List<Tensor> streams) {
        Tensor sum = ops.copy(streams.getFirst());
        try (Tensor target = magnitude(streams.getFirst(), false)) {
            for (int i = 1; i < streams.size(); i++) {
                try (Tensor r = rescaled(weights.altUpUnembed().get(i - 1), streams.get(i), target); Tensor prev = sum) {
                    sum = ops.add(prev, r);
                }
            }
            try (Tensor total = sum) {
                return ops.binary(BinaryOp.DIV, total, streams.size());
            }
        } catch (RuntimeException e) {
            sum.close();
            throw e;
        }
    }

    private Tensor rescaled(Linear projection, Tensor x, Tensor target) {
        try (Tensor p = projection.apply(ops, x);
             Tensor mag = magnitude(p, true);
             Tensor scaled = ops.mul(p, target)) {
            return ops.div(scaled, mag);
        }
    }

    /** {@code sqrt(mean(x², last axis))}, with the mean floored at {@link #MAGNITUDE_FLOOR} when asked. */
    private Tensor magnitude(Tensor x, boolean floored) {
        try (Tensor sq = ops.unary(UnaryOp.SQUARE, x);
             Tensor mean = ops.reduce(Reduction.MEAN, sq, x.rank() - 1, true);
             Tensor kept = floored ? ops.binary(BinaryOp.MAXIMUM, mean, MAGNITUDE_FLOOR) : null) {
            return ops.unary(UnaryOp.SQRT, kept == null ? mean : kept);
        }
    }

    /** One decoder layer over the streams (borrowed); returns the new streams. */
    private List<Tensor> layer(int i, List<Tensor> streams, Tensor perLayer, KvState state, Sharing sharing) {
        Gemma3nLayer w = weights.layers().get(i);
        double eps = config.normEps();
        List<Tensor> predictions = w.altUp().predict(ops, streams);
        List<Tensor> corrected = List.of();
        try {
            Tensor active = predictions.get(config.altupActive());
            Tensor activated;
            try (Tensor normed = ops.rmsNorm(active, w.inputNorm(), eps);
                 Tensor laurel = w.laurel().apply(ops, normed);
                 Tensor attn = attention(i, w, normed, state, sharing);
                 Tensor attnNormed = ops.rmsNorm(attn, w.postAttnNorm(), eps);
                 Tensor gated = ops.add(active, attnNormed);
                 Tensor both = ops.add(gated, laurel);
                 Tensor attnLaurel = ops.binary(BinaryOp.DIV, both, Math.sqrt(2));
                 Tensor mlpIn = ops.rmsNorm(attnLaurel, w.preMlpNorm(), eps);
                 Tensor mlp = mlp(w, mlpIn);
                 Tensor mlpNormed = ops.rmsNorm(mlp, w.postMlpNorm(), eps)) {
                activated = ops.add(attnLaurel, mlpNormed);
            }
            try (activated) {
                corrected = w.altUp().correct(ops, predictions, activated);
            }
            try (Tensor update = perLayerUpdate(i, w, corrected.get(config.altupActive()), perLayer)) {
                List<Tensor> out = new ArrayList<>(corrected.size());
                out.add(ops.copy(corrected.getFirst()));
                // transformers adds the per-layer input to streams 1.. (not "the inactive ones")
                for (int s = 1; s < corrected.size(); s++) out.add(ops.add(corrected.get(s), update));
                return out;
            }
        } finally {
            predictions.forEach(Tensor::close);
            corrected.forEach(Tensor::close);
        }
    }

    /** {@code norm(projection(gelu(gate(scale·x)) · perLayer[:, :, i]))}. */
    private Tensor perLayerUpdate(int i, Gemma3nLayer w, Tensor first, Tensor perLayer) {
        int b = first.dim(0), t = first.dim(1);
        try (Tensor scaled = config.altupCorrectScale() ? w.altUp().scaleCorrected(ops, first) : ops.copy(first);
             Tensor g = w.perLayerGate().apply(ops, scaled);
             Tensor a = ops.unary(UnaryOp.GELU_TANH, g);
             Tensor slice = ops.slice(perLayer, 2, i, i + 1);
             Tensor input = ops.reshape(slice, Shape.of(b, t, config.perLayerHidden()));
             Tensor gated = ops.mul(a, input);
             Tensor projected = w.perLayerProjection().apply(ops, gated)) {
            return ops.rmsNorm(projected, w.postPerLayerNorm(), config.normEps());
        }
    }

    private Tensor attention(int i, Gemma3nLayer w, Tensor h, KvState state, Sharing sharing) {
        int b = h.dim(0);
        LayerAttention la = config.attention().get(i);
        int donor = config.donor(i);
        KvLayout cache = donor < 0 ? state.layer(i) : null;
        // a borrowing layer's queries are the donor's last appended tokens: they start where the donor's did
        int[] ropeOffsets = donor < 0 ? cache.ropeOffsets() : sharing.offsets[donor];
        try (Tensor offsets = backend.fromInts(ropeOffsets, Shape.of(b), DType.I32);
             Tensor q = heads(w.q(), w.qNorm(), h, config.heads());
             Tensor qr = ops.rope(q, la.rope(), offsets)) {
            Tensor o;
            if (donor < 0) {
                try (Tensor k = heads(w.k(), w.kNorm(), h, config.kvHeads());
                     Tensor v = heads(w.v(), weights.ones(), h, config.kvHeads());
                     Tensor kr = ops.rope(k, la.rope(), offsets)) {
                    cache.append(kr, v);
                }
                o = cache.attend(qr, ATTENTION_SCALE);
                if (lends[i]) {
                    sharing.captures[i] = cache.capture();
                    sharing.offsets[i] = ropeOffsets;
                }
            } else {
                KvCapture capture = sharing.captures[donor];
                if (capture == null) throw new IllegalStateException("layer " + i + " reads layer " + donor + "'s KV, which was not captured");
                o = capture.attend(qr, ATTENTION_SCALE);
            }
            try (o; Tensor merged = Attention.merge(ops, o)) {
                return w.o().apply(ops, merged);
            }
        }
    }

    /** Projects {@code h [B, T, hidden]} to {@code [B, heads, T, headDim]}, RMS-normalizing each head by {@code norm}. */
    private Tensor heads(Linear projection, Tensor norm, Tensor h, int heads) {
        return Attention.heads(ops, projection, h, heads, config.headDim(), norm, config.normEps());
    }

    private Tensor mlp(Gemma3nLayer w, Tensor h) {
        return w.mlp().apply(ops, UnaryOp.GELU_TANH, h, w.sparsity() == null ? null : w.sparsity()::apply);
    }

    @Override
    public Tensor projectLogits(Tensor hidden, LogitSelection selection) {
        return LogitHead.project(ops, hidden, selection, weights.lmHead() == null ? weights.embedding()::project : weights.lmHead()::apply,
                config.vocab(), config.finalSoftcap());
    }
}
