package panamax.models.decoder;

import panamax.api.tensor.Tensor;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Mlp;

/**
 * One decoder layer's weights. Norm weights are ready to pass to {@code rmsNorm} (for Gemma,
 * {@code 1 + w} precomputed in f32). Optional parts are null when the family has none.
 *
 * @param q             query projection (heads·headDim, hidden)
 * @param k             key projection (kvHeads·headDim, hidden)
 * @param v             value projection (kvHeads·headDim, hidden)
 * @param o             output projection (hidden, heads·headDim)
 * @param qNorm         per-head query norm (headDim), or null
 * @param kNorm         per-head key norm (headDim), or null
 * @param inputNorm     norm before attention (hidden)
 * @param postAttnNorm  norm of the attention output before the residual (hidden), or null
 * @param preMlpNorm    norm before the MLP (hidden)
 * @param postMlpNorm   norm of the MLP output before the residual (hidden), or null
 * @param mlp           the gated MLP (intermediate, hidden), or null in a sparse layer
 * @param experts       the routed experts that replace the MLP in a sparse layer, or null
 */
record LayerWeights(Linear q, Linear k, Linear v, Linear o, Tensor qNorm, Tensor kNorm, Tensor inputNorm,
                    Tensor postAttnNorm, Tensor preMlpNorm, Tensor postMlpNorm, Mlp mlp, SparseMoe experts)
        implements AutoCloseable {
    @Override
    public void close() {
        for (Linear l : new Linear[]{q, k, v, o}) l.close();
        if (mlp != null) mlp.close();
        if (experts != null) experts.close();
        for (Tensor t : new Tensor[]{qNorm, kNorm, inputNorm, postAttnNorm, preMlpNorm, postMlpNorm}) {
            if (t != null) t.close();
        }
    }
}
