package ${package};

import panamax.api.kv.KvLayout;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.KvState;
import panamax.api.model.LogitSelection;
import panamax.api.tensor.Backend;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.model.support.blocks.Attention;
import panamax.model.support.blocks.LogitHead;

/**
 * GPT-2's forward pass: token + learned position embeddings, then per block LayerNorm → fused
 * q/k/v → attention through the layer's KV layout → projection → residual → LayerNorm → GELU-tanh
 * MLP → residual, then the final LayerNorm; logits through the tied embedding. Activations are
 * f32. Borrows its weights; {@code ops} are the backend's. Not thread-safe per KV state.
 */
record Gpt2Graph(Gpt2Config c, Gpt2Weights w, Backend backend, Ops ops) implements AutoregressiveGraph {

    @Override
    public Tensor forwardHidden(Tensor ids, KvState state) {
        Tensor x;
        try (Tensor tok = w.wte().lookup(ops, ids, 1.0); Tensor pe = w.wpe().lookup(backend, state.layer(0), ids.dim(0), ids.dim(1))) {
            x = ops.add(tok, pe);
        }
        for (int i = 0; i < c.layers(); i++) {
            Tensor next = block(w.blocks().get(i), x, state.layer(i));
            x.close();
            x = next;
        }
        try (Tensor last = x) {
            return w.lnF().apply(ops, last);
        }
    }

    private Tensor block(Gpt2Weights.Block k, Tensor x, KvLayout cache) {
        Tensor mid;
        try (Tensor h = k.ln1().apply(ops, x); Tensor a = attention(k, h, cache)) {
            mid = ops.add(x, a);
        }
        try (mid; Tensor h = k.ln2().apply(ops, mid); Tensor m = k.mlp().apply(ops, UnaryOp.GELU_TANH, h)) {
            return ops.add(mid, m);
        }
    }

    private Tensor attention(Gpt2Weights.Block k, Tensor h, KvLayout cache) {
        try (Tensor qkv = k.attn().apply(ops, h); Tensor q = part(qkv, 0); Tensor key = part(qkv, 1); Tensor v = part(qkv, 2);
             Tensor o = Attention.attend(backend, cache, q, key, v, null, 1.0 / Math.sqrt(c.headDim()))) {
            return k.proj().apply(ops, o);
        }
    }

    /** Part {@code i} (0 q, 1 k, 2 v) of the fused projection, as {@code [B, heads, T, headDim]}. */
    private Tensor part(Tensor qkv, int i) {
        try (Tensor s = ops.slice(qkv, 2, i * c.hidden(), (i + 1) * c.hidden())) {
            return Attention.split(ops, s, c.heads(), c.headDim(), null, 0);
        }
    }

    @Override
    public Tensor projectLogits(Tensor hidden, LogitSelection selection) {
        return LogitHead.project(ops, hidden, selection, w.wte()::project, c.vocab(), 0);
    }
}
