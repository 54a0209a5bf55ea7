package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.Tensor;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Mlp;
import panamax.model.support.weights.Loaded;
import panamax.model.support.blocks.Embedding;
import panamax.model.support.weights.WeightSource;

/**
 * Every weight of a dense decoder, loaded by Hugging Face name. Owns them all.
 *
 * @param embedding   token embedding (vocab, hidden)
 * @param layers      per layer
 * @param finalNorm   norm after the last layer (hidden)
 * @param lmHead      output projection (vocab, hidden), or null when tied to the embedding
 */
record DecoderWeights(Embedding embedding, List<LayerWeights> layers, Tensor finalNorm, Linear lmHead) implements AutoCloseable {

    /**
     * Loads the weights {@code config} implies.
     *
     * @throws panamax.api.error.BadModelFileException naming the file and tensor that is missing or mismatched
     */
    static DecoderWeights load(DecoderConfig c, WeightSource w) {
        List<AutoCloseable> loaded = new ArrayList<>();
        try {
            DecoderFamily f = c.family();
            Embedding embedding = track(loaded, w.embedding("model.embed_tokens", c.vocab(), c.hidden()));
            List<LayerWeights> layers = new ArrayList<>();
            int qOut = c.heads() * c.headDim(), kvOut = c.kvHeads() * c.headDim();
            for (int i = 0; i < c.layers(); i++) {
                String p = "model.layers." + i + ".";
                String attn = p + "self_attn.";
                Linear q = track(loaded, w.linear(attn + "q_proj", qOut, c.hidden(), c.qkvBias()));
                Linear k = track(loaded, w.linear(attn + "k_proj", kvOut, c.hidden(), c.qkvBias()));
                Linear v = track(loaded, w.linear(attn + "v_proj", kvOut, c.hidden(), c.qkvBias()));
                Linear o = track(loaded, w.linear(attn + "o_proj", c.hidden(), qOut, c.outputBias()));
                Tensor qNorm = f.qkNorm() ? track(loaded, w.norm(attn + "q_norm.weight", c.headDim(), f.normPlusOne())) : null;
                Tensor kNorm = f.qkNorm() ? track(loaded, w.norm(attn + "k_norm.weight", c.headDim(), f.normPlusOne())) : null;
                Tensor inputNorm = track(loaded, w.norm(p + "input_layernorm.weight", c.hidden(), f.normPlusOne()));
                Tensor postAttn = null, preMlp, postMlp = null;
                if (f.sandwichNorms()) {
                    postAttn = track(loaded, w.norm(p + "post_attention_layernorm.weight", c.hidden(), f.normPlusOne()));
                    preMlp = track(loaded, w.norm(p + "pre_feedforward_layernorm.weight", c.hidden(), f.normPlusOne()));
                    postMlp = track(loaded, w.norm(p + "post_feedforward_layernorm.weight", c.hidden(), f.normPlusOne()));
                } else {
                    preMlp = track(loaded, w.norm(p + "post_attention_layernorm.weight", c.hidden(), f.normPlusOne()));
                }
                Mlp mlp = null;
                SparseMoe experts = null;
                if (c.experts().isPresent() && c.experts().get().sparse(i)) {
                    experts = track(loaded, ExpertWeights.load(c, c.experts().get(), w, p));
                } else {
                    Linear gate = track(loaded, w.linear(p + "mlp.gate_proj", c.intermediate(), c.hidden(), c.mlpBias()));
                    Linear up = track(loaded, w.linear(p + "mlp.up_proj", c.intermediate(), c.hidden(), c.mlpBias()));
                    Linear down = track(loaded, w.linear(p + "mlp.down_proj", c.hidden(), c.intermediate(), c.mlpBias()));
                    mlp = Mlp.gated(gate, up, down);
                }
                LayerWeights layer = new LayerWeights(q, k, v, o, qNorm, kNorm, inputNorm, postAttn, preMlp, postMlp, mlp, experts);
                loaded.clear();
                loaded.add(embedding);
                layers.forEach(loaded::add);
                loaded.add(layer);
                layers.add(layer);
            }
            Tensor finalNorm = track(loaded, w.norm("model.norm.weight", c.hidden(), f.normPlusOne()));
            // A tied model may still ship lm_head.weight (some exports do); HF ignores it, and so do we.
            Linear lmHead = c.tiedEmbeddings() ? null : track(loaded, w.linear("lm_head", c.vocab(), c.hidden(), false));
            return new DecoderWeights(embedding, layers, finalNorm, lmHead);
        } catch (RuntimeException e) {
            throw Loaded.closeAll(loaded, e);
        }
    }

    private static <T extends AutoCloseable> T track(List<AutoCloseable> loaded, T t) {
        return Loaded.track(loaded, t);
    }

    @Override
    public void close() {
        embedding.close();
        layers.forEach(LayerWeights::close);
        finalNorm.close();
        if (lmHead != null) lmHead.close();
    }
}
