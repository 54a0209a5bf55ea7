package panamax.engine.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import panamax.api.error.InvalidParameterException;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.ModelSpec;
import panamax.api.tensor.DType;

/**
 * Built-in model shapes to plan for when no model directory is given. They describe well-known
 * shapes from their configs alone; no weights exist for them.
 */
public final class Presets {
    /** The preset used when neither {@code --model} nor {@code --preset} is given. */
    public static final String DEFAULT = "1b";

    private static final Map<String, ModelSpec> PRESETS = build();

    private Presets() {
    }

    /** Preset names, in the order users read them. */
    public static List<String> names() {
        return List.copyOf(PRESETS.keySet());
    }

    /**
     * The preset called {@code name}.
     *
     * @throws InvalidParameterException naming the known presets when there is none by that name
     */
    public static ModelSpec get(String name) {
        ModelSpec spec = PRESETS.get(name);
        if (spec == null) throw new InvalidParameterException("--preset", name, String.join(", ", PRESETS.keySet()));
        return spec;
    }

    private static Map<String, ModelSpec> build() {
        Map<String, ModelSpec> presets = new LinkedHashMap<>();
        // Llama-3.2-1B shaped, with a Llama-2 sized vocabulary.
        presets.put("1b", llama("1b", 16, 2048, 32, 8, 64, 8192, 32000, true, 131072));
        // Llama-3.1-8B shaped.
        presets.put("8b", llama("8b", 32, 4096, 32, 8, 128, 14336, 128256, false, 131072));
        presets.put("gemma3-1b", gemma3OneB());
        return presets;
    }

    private static ModelSpec llama(String name, int layers, int hidden, int heads, int kvHeads, int headDim,
                                   int intermediate, int vocab, boolean tiedEmbeddings, int maxPositions) {
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < layers; i++) needs.add(LayerKvNeed.full(i, kvHeads, headDim));
        long params = decoderParams(layers, hidden, heads, kvHeads, headDim, intermediate, 2)
                + (long) vocab * hidden * (tiedEmbeddings ? 1 : 2) + hidden;
        return new ModelSpec(name, "llama", needs, DType.BF16, params * DType.BF16.byteSize(), vocab, maxPositions);
    }

    /** Gemma-3-1B shaped: one full-attention layer after every five sliding-window (512) layers. */
    private static ModelSpec gemma3OneB() {
        int layers = 26, hidden = 1152, heads = 4, kvHeads = 1, headDim = 256, intermediate = 6912, vocab = 262144;
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < layers; i++) {
            needs.add((i + 1) % 6 == 0 ? LayerKvNeed.full(i, kvHeads, headDim) : LayerKvNeed.sliding(i, 512, kvHeads, headDim));
        }
        // Gemma adds q/k norms and pre/post feed-forward norms: four norms per layer plus two head-dim ones.
        long params = decoderParams(layers, hidden, heads, kvHeads, headDim, intermediate, 4)
                + (long) layers * 2 * headDim + (long) vocab * hidden + hidden;
        return new ModelSpec("gemma3-1b", "gemma3_text", needs, DType.BF16, params * DType.BF16.byteSize(), vocab, 32768);
    }

    private static long decoderParams(int layers, int hidden, int heads, int kvHeads, int headDim, int intermediate, int norms) {
        long attention = (long) hidden * heads * headDim * 2 + (long) hidden * kvHeads * headDim * 2;
        long mlp = 3L * hidden * intermediate;
        return layers * (attention + mlp + (long) norms * hidden);
    }
}
