package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.Tensor;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Mlp;
import panamax.model.support.weights.Loaded;
import panamax.model.support.weights.WeightSource;

/**
 * One Gemma 3n decoder layer's weights. Norm weights scale by {@code w} (Gemma 3n's RMSNorm has no
 * {@code 1 +}). A layer that reads a donor's KV has no key/value projections or key norm (null).
 *
 * @param q                 query projection (heads·headDim, hidden)
 * @param k                 key projection (kvHeads·headDim, hidden), or null for a borrowing layer
 * @param v                 value projection (kvHeads·headDim, hidden), or null for a borrowing layer
 * @param o                 output projection (hidden, heads·headDim)
 * @param qNorm             per-head query norm (headDim)
 * @param kNorm             per-head key norm (headDim), or null for a borrowing layer
 * @param inputNorm         norm of the active stream's prediction before attention (hidden)
 * @param postAttnNorm      norm of the attention output (hidden)
 * @param preMlpNorm        norm before the MLP (hidden)
 * @param postMlpNorm       norm of the MLP output (hidden)
 * @param mlp               the GELU-tanh gated MLP (intermediate, hidden)
 * @param sparsity          Gaussian top-k of the gate, or null for a dense layer
 * @param altUp             the layer's AltUp predict/correct block
 * @param laurel            the layer's LAuReL residual
 * @param perLayerGate      gate of the per-layer input (perLayerHidden, hidden)
 * @param perLayerProjection projection of the gated per-layer input back to the hidden size (hidden, perLayerHidden)
 * @param postPerLayerNorm  norm of that projection (hidden)
 */
record Gemma3nLayer(Linear q, Linear k, Linear v, Linear o, Tensor qNorm, Tensor kNorm, Tensor inputNorm, Tensor postAttnNorm,
                    Tensor preMlpNorm, Tensor postMlpNorm, Mlp mlp, GaussianTopK sparsity,
                    AltUp altUp, Laurel laurel, Linear perLayerGate, Linear perLayerProjection, Tensor postPerLayerNorm)
        implements AutoCloseable {

    /** Loads layer {@code i} under {@code c.prefix()}. */
    static Gemma3nLayer load(WeightSource w, Gemma3nConfig c, int i) {
        String p = c.prefix() + "layers." + i + ".";
        String attn = p + "self_attn.";
        int qOut = c.heads() * c.headDim(), kvOut = c.kvHeads() * c.headDim(), hidden = c.hidden(), inner = c.intermediate()[i];
        boolean own = c.donor(i) < 0;
        List<AutoCloseable> loaded = new ArrayList<>();
        try {
            Linear q = Loaded.track(loaded, w.linear(attn + "q_proj", qOut, hidden, false));
            // a borrowing layer's k/v projections, when a checkpoint ships them, are never used (transformers ignores them too)
            Linear k = own ? Loaded.track(loaded, w.linear(attn + "k_proj", kvOut, hidden, false)) : null;
            Linear v = own ? Loaded.track(loaded, w.linear(attn + "v_proj", kvOut, hidden, false)) : null;
            Linear o = Loaded.track(loaded, w.linear(attn + "o_proj", hidden, qOut, false));
            Tensor qNorm = Loaded.track(loaded, w.norm(attn + "q_norm.weight", c.headDim(), false));
            Tensor kNorm = own ? Loaded.track(loaded, w.norm(attn + "k_norm.weight", c.headDim(), false)) : null;
            Tensor inputNorm = Loaded.track(loaded, w.norm(p + "input_layernorm.weight", hidden, false));
            Tensor postAttn = Loaded.track(loaded, w.norm(p + "post_attention_layernorm.weight", hidden, false));
            Tensor preMlp = Loaded.track(loaded, w.norm(p + "pre_feedforward_layernorm.weight", hidden, false));
            Tensor postMlp = Loaded.track(loaded, w.norm(p + "post_feedforward_layernorm.weight", hidden, false));
            Linear gate = Loaded.track(loaded, w.linear(p + "mlp.gate_proj", inner, hidden, false));
            Linear up = Loaded.track(loaded, w.linear(p + "mlp.up_proj", inner, hidden, false));
            Linear down = Loaded.track(loaded, w.linear(p + "mlp.down_proj", hidden, inner, false));
            Mlp mlp = Mlp.gated(gate, up, down);
            double s = c.sparsity()[i];
            AltUp altUp = Loaded.track(loaded, AltUp.load(w, p + "altup.", c));
            Laurel laurel = Loaded.track(loaded, Laurel.load(w, p + "laurel.", hidden, c.laurelRank(), c.normEps()));
            Linear plGate = Loaded.track(loaded, w.linear(p + "per_layer_input_gate", c.perLayerHidden(), hidden, false));
            Linear plProjection = Loaded.track(loaded, w.linear(p + "per_layer_projection", hidden, c.perLayerHidden(), false));
            Tensor plNorm = Loaded.track(loaded, w.norm(p + "post_per_layer_input_norm.weight", hidden, false));
            return new Gemma3nLayer(q, k, v, o, qNorm, kNorm, inputNorm, postAttn, preMlp, postMlp, mlp,
                    s > 0 ? new GaussianTopK(s) : null, altUp, laurel, plGate, plProjection, plNorm);
        } catch (RuntimeException e) {
            throw Loaded.closeAll(loaded, e);
        }
    }

    @Override
    public void close() {
        for (Linear l : new Linear[]{q, k, v, o, perLayerGate, perLayerProjection}) if (l != null) l.close();
        mlp.close();
        for (Tensor t : new Tensor[]{qNorm, kNorm, inputNorm, postAttnNorm, preMlpNorm, postMlpNorm, postPerLayerNorm}) if (t != null) t.close();
        altUp.close();
        laurel.close();
    }
}
