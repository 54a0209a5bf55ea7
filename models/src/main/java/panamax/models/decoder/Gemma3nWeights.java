package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Embedding;
import panamax.model.support.weights.Loaded;
import panamax.model.support.weights.WeightSource;

/**
 * Every weight of Gemma 3n's text decoder, loaded by Hugging Face name under {@link Gemma3nConfig#prefix()}.
 * Vision and audio towers of a multimodal checkpoint are not loaded. Owns them all.
 *
 * @param embedding           token embedding (vocab, hidden)
 * @param perLayerEmbedding   per-layer input embedding (perLayerVocab, layers·perLayerHidden)
 * @param perLayerProjection  projection of the embedding to per-layer inputs (layers·perLayerHidden, hidden)
 * @param perLayerNorm        norm of each layer's projected input (perLayerHidden)
 * @param altUpProjections    stream i+1 from the embedding (hidden, hidden), streams−1 of them
 * @param altUpUnembed        stream i+1 back to the output space (hidden, hidden), streams−1 of them
 * @param layers              per layer
 * @param finalNorm           norm after the streams are merged (hidden)
 * @param lmHead              output projection (vocab, hidden), or null when tied to the embedding
 * @param ones                a (headDim) vector of ones: the value norm has no scale
 */
record Gemma3nWeights(Embedding embedding, Embedding perLayerEmbedding, Linear perLayerProjection, Tensor perLayerNorm,
                      List<Linear> altUpProjections, List<Linear> altUpUnembed, List<Gemma3nLayer> layers, Tensor finalNorm,
                      Linear lmHead, Tensor ones) implements AutoCloseable {

    /**
     * Loads the weights {@code c} implies.
     *
     * @throws panamax.api.error.BadModelFileException naming the file and tensor that is missing or mismatched
     */
    static Gemma3nWeights load(Gemma3nConfig c, WeightSource w, panamax.api.tensor.Backend backend) {
        List<AutoCloseable> loaded = new ArrayList<>();
        try {
            String m = c.prefix();
            int perLayerWidth = c.layers() * c.perLayerHidden();
            Embedding embedding = Loaded.track(loaded, w.embedding(m + "embed_tokens", c.vocab(), c.hidden()));
            Embedding perLayer = Loaded.track(loaded, w.embedding(m + "embed_tokens_per_layer", c.perLayerVocab(), perLayerWidth));
            Linear projection = Loaded.track(loaded, w.linear(m + "per_layer_model_projection", perLayerWidth, c.hidden(), false));
            Tensor perLayerNorm = Loaded.track(loaded, w.norm(m + "per_layer_projection_norm.weight", c.perLayerHidden(), false));
            List<Linear> up = new ArrayList<>(), down = new ArrayList<>();
            for (int i = 0; i + 1 < c.altupStreams(); i++) {
                up.add(Loaded.track(loaded, w.linear(m + "altup_projections." + i, c.hidden(), c.hidden(), false)));
                down.add(Loaded.track(loaded, w.linear(m + "altup_unembed_projections." + i, c.hidden(), c.hidden(), false)));
            }
            List<Gemma3nLayer> layers = new ArrayList<>();
            for (int i = 0; i < c.layers(); i++) layers.add(Loaded.track(loaded, Gemma3nLayer.load(w, c, i)));
            Tensor finalNorm = Loaded.track(loaded, w.norm(m + "norm.weight", c.hidden(), false));
            Linear lmHead = c.tiedEmbeddings() ? null : Loaded.track(loaded, w.linear("lm_head", c.vocab(), c.hidden(), false));
            Tensor ones = backend.ops().full(Shape.of(c.headDim()), 1.0, DType.F32);
            return new Gemma3nWeights(embedding, perLayer, projection, perLayerNorm, up, down, layers, finalNorm, lmHead, ones);
        } catch (RuntimeException e) {
            throw Loaded.closeAll(loaded, e);
        }
    }

    @Override
    public void close() {
        embedding.close();
        perLayerEmbedding.close();
        perLayerProjection.close();
        perLayerNorm.close();
        altUpProjections.forEach(Linear::close);
        altUpUnembed.forEach(Linear::close);
        layers.forEach(Gemma3nLayer::close);
        finalNorm.close();
        if (lmHead != null) lmHead.close();
        ones.close();
    }
}
