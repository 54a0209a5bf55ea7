package ${package};

import java.util.ArrayList;
import java.util.List;
import panamax.model.support.blocks.Embedding;
import panamax.model.support.blocks.LearnedPositions;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Mlp;
import panamax.model.support.blocks.Norm;
import panamax.model.support.weights.Loaded;
import panamax.model.support.weights.WeightSource;

/**
 * GPT-2's weights by Hugging Face name (with or without the {@code transformer.} prefix). Conv1D
 * weights stay as stored, {@code [in, out]}. Owns every tensor.
 *
 * @param wte    token embedding (vocab, hidden), also the tied output projection
 * @param wpe    learned positions (positions, hidden)
 * @param blocks per layer
 * @param lnF    the final LayerNorm
 * @param owned  everything above, closed together
 */
record Gpt2Weights(Embedding wte, LearnedPositions wpe, List<Block> blocks, Norm lnF, List<AutoCloseable> owned) implements AutoCloseable {
    /** One block: {@code c_attn} is q, k and v fused, (hidden, 3·hidden). */
    record Block(Norm ln1, Linear attn, Linear proj, Norm ln2, Mlp mlp) {
    }

    static Gpt2Weights load(Gpt2Config c, WeightSource w) {
        String p = w.files().names().stream().anyMatch(n -> n.startsWith("transformer.")) ? "transformer." : "";
        int h = c.hidden();
        List<AutoCloseable> owned = new ArrayList<>();
        try {
            Embedding wte = Loaded.track(owned, w.embedding(p + "wte", c.vocab(), h));
            LearnedPositions wpe = Loaded.track(owned, new LearnedPositions(w.matrix(p + "wpe.weight", c.positions(), h)));
            List<Block> blocks = new ArrayList<>();
            for (int i = 0; i < c.layers(); i++) {
                String b = p + "h." + i + ".";
                Norm ln1 = Loaded.track(owned, w.layerNorm(b + "ln_1", h, c.eps()));
                Linear attn = Loaded.track(owned, w.inputMajor(b + "attn.c_attn", h, 3 * h, true));
                Linear proj = Loaded.track(owned, w.inputMajor(b + "attn.c_proj", h, h, true));
                Norm ln2 = Loaded.track(owned, w.layerNorm(b + "ln_2", h, c.eps()));
                Linear fc = Loaded.track(owned, w.inputMajor(b + "mlp.c_fc", h, c.inner(), true));
                Linear out = Loaded.track(owned, w.inputMajor(b + "mlp.c_proj", c.inner(), h, true));
                blocks.add(new Block(ln1, attn, proj, ln2, Mlp.plain(fc, out)));
            }
            return new Gpt2Weights(wte, wpe, blocks, Loaded.track(owned, w.layerNorm(p + "ln_f", h, c.eps())), owned);
        } catch (RuntimeException e) {
            throw Loaded.closeAll(owned, e);
        }
    }

    @Override
    public void close() {
        Loaded.closeAll(owned);
    }
}
