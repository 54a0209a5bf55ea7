package panamax.example.gpt2;

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
 * GPT-2's forward pass: token + learned position embeddings, then per block LayerNorm → fused
 * q/k/v Conv1D → attention through the layer's KV layout → projection → residual → LayerNorm →
 * GELU-tanh MLP → residual, then the final LayerNorm; logits through the tied embedding. A row's
 * positions come from its layout's {@code ropeOffsets()}, so left padding puts the first real token
 * at position 0. Activations are f32. Borrows its weights. Not thread-safe per KV state.
 */
final class Gpt2Graph implements AutoregressiveGraph {
    private final Gpt2Config c;
    private final Gpt2Weights w;
    private final Backend backend;
    private final Ops ops;

    Gpt2Graph(Gpt2Config config, Gpt2Weights weights, Backend backend) {
        this.c = config;
        this.w = weights;
        this.backend = backend;
        this.ops = backend.ops();
    }

    @Override
    public Tensor forwardHidden(Tensor ids, KvState state) {
        int b = ids.dim(0), t = ids.dim(1);
        int[] first = state.layer(0).ropeOffsets();
        int[] positions = new int[b * t];
        for (int r = 0; r < b; r++) {
            for (int i = 0; i < t; i++) {
                int p = first[r] + i;
                if (p >= c.positions()) throw new IllegalArgumentException("position " + p + " beyond n_positions " + c.positions());
                positions[r * t + i] = Math.max(p, 0); // padding columns sit before position 0; they are masked anyway
            }
        }
        Tensor x;
        try (Tensor pos = backend.fromInts(positions, Shape.of(b, t), DType.I32);
             Tensor tok = ops.take(w.wte, ids, 0); Tensor pe = ops.take(w.wpe, pos, 0);
             Tensor tokF = ops.astype(tok, DType.F32)) {
            x = ops.add(tokF, pe);
        }
        for (int i = 0; i < c.layers(); i++) {
            Tensor next = block(w.blocks.get(i), x, state.layer(i));
            x.close();
            x = next;
        }
        try (Tensor last = x) {
            return ops.layerNorm(last, w.lnFW, w.lnFB, c.eps());
        }
    }

    private Tensor block(Gpt2Weights.Block k, Tensor x, KvLayout cache) {
        Tensor mid;
        try (Tensor h = ops.layerNorm(x, k.ln1W(), k.ln1B(), c.eps()); Tensor a = attention(k, h, cache)) {
            mid = ops.add(x, a);
        }
        try (mid; Tensor h = ops.layerNorm(mid, k.ln2W(), k.ln2B(), c.eps());
             Tensor fc = conv1d(h, k.fcW(), k.fcB()); Tensor g = ops.unary(UnaryOp.GELU_TANH, fc);
             Tensor out = conv1d(g, k.outW(), k.outB())) {
            return ops.add(mid, out);
        }
    }

    private Tensor attention(Gpt2Weights.Block k, Tensor h, KvLayout cache) {
        int b = h.dim(0), t = h.dim(1), hd = c.headDim();
        try (Tensor qkv = conv1d(h, k.attnW(), k.attnB());
             Tensor q = heads(qkv, 0); Tensor key = heads(qkv, 1); Tensor v = heads(qkv, 2)) {
            cache.append(key, v);
            try (Tensor o = cache.attend(q, 1.0 / Math.sqrt(hd));
                 Tensor ot = ops.transpose(o, 0, 2, 1, 3);
                 Tensor flat = ops.reshape(ot, Shape.of(b, t, c.hidden()))) {
                return conv1d(flat, k.projW(), k.projB());
            }
        }
    }

    /** Part {@code part} (0 q, 1 k, 2 v) of the fused projection, as {@code [B, heads, T, headDim]}. */
    private Tensor heads(Tensor qkv, int part) {
        int b = qkv.dim(0), t = qkv.dim(1);
        try (Tensor s = ops.slice(qkv, 2, part * c.hidden(), (part + 1) * c.hidden());
             Tensor r = ops.reshape(s, Shape.of(b, t, c.heads(), c.headDim()))) {
            return ops.transpose(r, 0, 2, 1, 3);
        }
    }

    /** HF's Conv1D: {@code x [B, T, in] · W [in, out] + b}, in f32. */
    private Tensor conv1d(Tensor x, Tensor weight, Tensor bias) {
        int b = x.dim(0), t = x.dim(1);
        try (Tensor flat = ops.reshape(x, Shape.of(b * t, x.dim(2)));
             Tensor y = ops.matmul(flat, weight); Tensor yb = ops.add(y, bias)) {
            return ops.reshape(yb, Shape.of(b, t, weight.dim(1)));
        }
    }

    @Override
    public Tensor projectLogits(Tensor hidden, LogitSelection selection) {
        int b = hidden.dim(0), t = hidden.dim(1);
        int start = switch (selection) {
            case LogitSelection.All all -> 0;
            case LogitSelection.Last last -> t - 1;
            case LogitSelection.Range r -> r.start();
        };
        int end = selection instanceof LogitSelection.Range r ? r.end() : t;
        if (end > t) throw new IllegalArgumentException("logit range ends at " + end + ", beyond " + t + " positions");
        try (Tensor picked = ops.slice(hidden, 1, start, end);
             Tensor flat = ops.reshape(picked, Shape.of(b * (end - start), c.hidden()));
             Tensor wt = ops.transpose(w.wte, 1, 0);
             Tensor logits = ops.matmul(flat, wt)) {
            return ops.reshape(logits, Shape.of(b, end - start, c.vocab()));
        }
    }
}
