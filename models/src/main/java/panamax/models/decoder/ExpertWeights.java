package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Mlp;
import panamax.model.support.weights.Loaded;
import panamax.model.support.weights.WeightSource;

/**
 * Loads one sparse layer's router and experts in either layout a checkpoint uses: as Hugging Face
 * writes them (one tensor per expert and projection, {@code <block>.experts.<e>.<proj>.weight}) or
 * as mlx-lm stacks them ({@code <block>.switch_mlp.{gate,up,down}_proj.weight [experts, out, in]},
 * floats or MLX-quantized). Both stay memory-mapped: stacked experts are views of their slice.
 * A shared expert ({@link MixtureOfExperts.SharedExpert}) is an ordinary gated MLP and its gate.
 */
final class ExpertWeights {
    private ExpertWeights() {
    }

    /**
     * The sparse MLP of the layer whose tensors start with {@code layerPrefix} ({@code model.layers.<i>.}).
     *
     * @throws panamax.api.error.BadModelFileException naming the file and tensor that is missing or mismatched
     */
    static SparseMoe load(DecoderConfig c, MoeConfig moe, WeightSource w, String layerPrefix) {
        MixtureOfExperts f = moe.family();
        String block = layerPrefix + f.block() + ".";
        int n = moe.experts(), width = moe.expertWidth(), hidden = c.hidden();
        List<AutoCloseable> owned = new ArrayList<>();
        List<Mlp> experts = new ArrayList<>();
        Linear router = null;
        Mlp shared = null;
        Linear sharedGate = null;
        try {
            router = w.linear(block + "gate", n, hidden, false);
            String stacked = block + "switch_mlp.";
            if (w.has(stacked + "gate_proj.weight")) {
                List<Linear> gate = w.stacked(stacked + "gate_proj", n, width, hidden, owned);
                owned.addAll(gate);
                List<Linear> up = w.stacked(stacked + "up_proj", n, width, hidden, owned);
                owned.addAll(up);
                List<Linear> down = w.stacked(stacked + "down_proj", n, hidden, width, owned);
                for (int e = 0; e < n; e++) experts.add(Mlp.gated(gate.get(e), up.get(e), down.get(e)));
                owned.removeAll(gate);
                owned.removeAll(up);
            } else {
                for (int e = 0; e < n; e++) {
                    String p = block + "experts." + e + ".";
                    Linear gate = w.linear(p + f.gate(), width, hidden, false);
                    Linear up = null;
                    try {
                        up = w.linear(p + f.up(), width, hidden, false);
                        experts.add(Mlp.gated(gate, up, w.linear(p + f.down(), hidden, width, false)));
                    } catch (RuntimeException ex) {
                        gate.close();
                        if (up != null) up.close();
                        throw ex;
                    }
                }
            }
            if (f.shared().isPresent()) {
                MixtureOfExperts.SharedExpert se = f.shared().get();
                String p = block + se.module() + ".";
                int sw = moe.sharedWidth();
                sharedGate = w.linear(block + se.gate(), 1, hidden, false);
                Linear gate = w.linear(p + f.gate(), sw, hidden, false);
                Linear up = null;
                try {
                    up = w.linear(p + f.up(), sw, hidden, false);
                    shared = Mlp.gated(gate, up, w.linear(p + f.down(), hidden, sw, false));
                } catch (RuntimeException ex) {
                    gate.close();
                    if (up != null) up.close();
                    throw ex;
                }
            }
            return new SparseMoe(router, experts, owned, moe.topK(), moe.normalizeTopK(), shared, sharedGate);
        } catch (RuntimeException e) {
            if (router != null) router.close();
            experts.forEach(Mlp::close);
            if (shared != null) shared.close();
            if (sharedGate != null) sharedGate.close();
            throw Loaded.closeAll(owned, e);
        }
    }
}
