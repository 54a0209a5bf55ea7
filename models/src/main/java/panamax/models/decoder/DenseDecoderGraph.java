package panamax.models.decoder;

import panamax.api.kv.KvLayout;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.KvState;
import panamax.api.model.LogitSelection;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;

/**
 * The forward pass shared by every dense decoder family: embedding, then per layer RMSNorm →
 * attention (q/k/v, optional per-head q/k norm, RoPE at each row's offset, the layer's KV layout)
 * → residual → RMSNorm → gated MLP (or, in a sparse layer, the routed experts: {@link SparseMoe})
 * → residual, then the final norm. Family differences come from
 * {@link DecoderFamily} flags. Activations are f32; weights stay as loaded. Borrows its weights
 * (the model owns them). Not thread-safe per KV state.
 */
final class DenseDecoderGraph implements AutoregressiveGraph {
    private final DecoderConfig config;
    private final DecoderWeights weights;
    private final Backend backend;
    private final Ops ops;
    private final double embeddingScale;

    DenseDecoderGraph(DecoderConfig config, DecoderWeights weights, Backend backend) {
        this.config = config;
        this.weights = weights;
        this.backend = backend;
        this.ops = backend.ops();
        this.embeddingScale = config.embeddingScale();
    }

    @Override
    public Tensor forwardHidden(Tensor ids, KvState state) {
        if (ids.rank() != 2) throw new IllegalArgumentException("ids: expected [B, T], found " + ids.shape());
        if (state.layers() != config.layers()) {
            throw new IllegalArgumentException("KV state has " + state.layers() + " layers, the model " + config.layers());
        }
        Tensor x = weights.embedding().lookup(ops, ids, embeddingScale);
        for (int i = 0; i < config.layers(); i++) {
            Tensor next = layer(i, x, state.layer(i));
            x.close();
            x = next;
        }
        try (Tensor last = x) {
            return ops.rmsNorm(last, weights.finalNorm(), config.normEps());
        }
    }

    /** One decoder layer over {@code x [B, T, hidden]}; returns the new residual stream. */
    private Tensor layer(int i, Tensor x, KvLayout cache) {
        LayerWeights w = weights.layers().get(i);
        Tensor afterAttention;
        try (Tensor h = ops.rmsNorm(x, w.inputNorm(), config.normEps());
             Tensor a = attention(i, w, h, cache);
             Tensor an = w.postAttnNorm() == null ? null : ops.rmsNorm(a, w.postAttnNorm(), config.normEps())) {
            afterAttention = ops.add(x, an == null ? a : an);
        }
        try (afterAttention;
             Tensor h = ops.rmsNorm(afterAttention, w.preMlpNorm(), config.normEps());
             Tensor m = mlp(w, h);
             Tensor mn = w.postMlpNorm() == null ? null : ops.rmsNorm(m, w.postMlpNorm(), config.normEps())) {
            return ops.add(afterAttention, mn == null ? m : mn);
        }
    }

    private Tensor attention(int i, LayerWeights w, Tensor h, KvLayout cache) {
        int b = h.dim(0), t = h.dim(1);
        LayerAttention la = config.attention().get(i);
        int[] ropeOffsets = cache.ropeOffsets(); // read before append moves them
        try (Tensor offsets = backend.fromInts(ropeOffsets, Shape.of(b), DType.I32);
             Tensor q = heads(w.q(), w.qNorm(), h, config.heads());
             Tensor k = heads(w.k(), w.kNorm(), h, config.kvHeads());
             Tensor v = heads(w.v(), null, h, config.kvHeads());
             Tensor qr = ops.rope(q, la.rope(), offsets);
             Tensor kr = ops.rope(k, la.rope(), offsets)) {
            cache.append(kr, v);
            try (Tensor o = cache.attend(qr, config.attentionScale());
                 Tensor ot = ops.transpose(o, 0, 2, 1, 3);
                 Tensor flat = ops.reshape(ot, Shape.of(b, t, config.heads() * config.headDim()))) {
                return w.o().apply(ops, flat);
            }
        }
    }

    /** Projects {@code h [B, T, hidden]} to {@code [B, heads, T, headDim]}, normalizing each head when {@code norm} is given. */
    private Tensor heads(Linear projection, Tensor norm, Tensor h, int heads) {
        int b = h.dim(0), t = h.dim(1);
        try (Tensor p = projection.apply(ops, h);
             Tensor split = ops.reshape(p, Shape.of(b, t, heads, config.headDim()));
             Tensor normed = norm == null ? null : ops.rmsNorm(split, norm, config.normEps())) {
            return ops.transpose(normed == null ? split : normed, 0, 2, 1, 3);
        }
    }

    private Tensor mlp(LayerWeights w, Tensor h) {
        UnaryOp act = config.family().activation();
        if (w.experts() != null) return w.experts().apply(backend, act, h);
        try (Tensor g = w.gate().apply(ops, h);
             Tensor ga = ops.unary(act, g);
             Tensor u = w.up().apply(ops, h);
             Tensor gu = ops.mul(ga, u)) {
            return w.down().apply(ops, gu);
        }
    }

    @Override
    public Tensor projectLogits(Tensor hidden, LogitSelection selection) {
        return LogitHead.project(ops, hidden, selection,
                (o, flat) -> weights.lmHead() == null ? weights.embedding().project(o, flat) : weights.lmHead().apply(o, flat),
                config.vocab(), config.finalSoftcap());
    }
}
