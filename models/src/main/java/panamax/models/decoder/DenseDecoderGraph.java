package panamax.models.decoder;

import java.util.List;
import panamax.api.kv.KvLayout;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.KvState;
import panamax.api.model.LogitSelection;
import panamax.api.tensor.Backend;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.model.support.blocks.Attention;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.LogitHead;

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
        int d = config.headDim();
        double eps = config.normEps();
        List<Tensor> qkv = Linear.applyAll(ops, List.of(w.q(), w.k(), w.v()), List.of(h, h, h)); // one pass over the threads
        try (Tensor pq = qkv.get(0);
             Tensor pk = qkv.get(1);
             Tensor pv = qkv.get(2);
             Tensor q = Attention.split(ops, pq, config.heads(), d, w.qNorm(), eps);
             Tensor k = Attention.split(ops, pk, config.kvHeads(), d, w.kNorm(), eps);
             Tensor v = Attention.split(ops, pv, config.kvHeads(), d, null, eps);
             Tensor o = Attention.attend(backend, cache, q, k, v, config.attention().get(i).rope(), config.attentionScale())) {
            return w.o().apply(ops, o);
        }
    }

    private Tensor mlp(LayerWeights w, Tensor h) {
        UnaryOp act = config.family().activation();
        return w.experts() != null ? w.experts().apply(backend, act, h) : w.mlp().apply(ops, act, h);
    }

    @Override
    public Tensor projectLogits(Tensor hidden, LogitSelection selection) {
        return LogitHead.project(ops, hidden, selection,
                (o, flat) -> weights.lmHead() == null ? weights.embedding().project(o, flat) : weights.lmHead().apply(o, flat),
                config.vocab(), config.finalSoftcap());
    }
}
