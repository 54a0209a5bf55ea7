package panamax.models.decoder;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import panamax.model.support.config.HfConfig;

/**
 * The mixture-of-experts dimensions of one checkpoint, read from config.json.
 *
 * @param family         the family's naming and rules
 * @param experts        experts per sparse layer ({@code num_experts} or {@code num_local_experts})
 * @param topK           experts each token is routed to ({@code num_experts_per_tok})
 * @param expertWidth    an expert's inner width
 * @param normalizeTopK  the selected experts' weights are renormalized to sum to one
 * @param sparseLayers   per layer, whether it is sparse
 * @param sharedWidth    the shared expert's inner width, or 0 when the family has none
 */
public record MoeConfig(MixtureOfExperts family, int experts, int topK, int expertWidth, boolean normalizeTopK, List<Boolean> sparseLayers,
                        int sharedWidth) {

    public MoeConfig {
        sparseLayers = List.copyOf(sparseLayers);
    }

    /** Whether layer {@code i} routes to experts. */
    public boolean sparse(int i) {
        return sparseLayers.get(i);
    }

    /** The number of sparse layers. */
    public int sparseLayerCount() {
        return (int) sparseLayers.stream().filter(s -> s).count();
    }

    /**
     * Reads {@code family}'s fields of {@code config} for a model of {@code layers} layers.
     *
     * @throws panamax.api.error.BadModelFileException naming config.json and the field that is missing or out of range
     */
    static MoeConfig read(HfConfig config, MixtureOfExperts family, int layers) {
        String expertsKey = config.has("num_experts") ? "num_experts" : "num_local_experts";
        int experts = config.requireInt(expertsKey, 1, 1 << 16);
        int topK = config.requireInt("num_experts_per_tok", 1, experts);
        int width = config.requireInt(family.widthKey(), 1, 1 << 24);
        boolean normalize = switch (family.normalization()) {
            case ALWAYS -> true;
            case FROM_NORM_TOPK_PROB -> config.boolOr("norm_topk_prob", false);
        };
        boolean[] sparse = new boolean[layers];
        switch (family.sparseLayers()) {
            case EVERY_LAYER -> java.util.Arrays.fill(sparse, true);
            case FROM_SPARSE_STEP -> {
                int step = config.intOr("decoder_sparse_step", 1, 1, Integer.MAX_VALUE);
                Set<Integer> dense = new HashSet<>();
                for (int i : config.intOrInts("mlp_only_layers")) {
                    if (i < 0 || i >= layers) throw config.bad("mlp_only_layers", "layer indices in [0, " + layers + ")", i);
                    dense.add(i);
                }
                for (int i = 0; i < layers; i++) sparse[i] = !dense.contains(i) && (i + 1) % step == 0;
            }
        }
        List<Boolean> perLayer = new ArrayList<>();
        for (boolean b : sparse) perLayer.add(b);
        int shared = family.shared().isEmpty() ? 0 : config.requireInt(family.shared().get().widthKey(), 1, 1 << 24);
        return new MoeConfig(family, experts, topK, width, normalize, perLayer, shared);
    }
}
