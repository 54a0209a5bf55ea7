package panamax.engine.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import panamax.api.error.InvalidParameterException;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.ModelSpec;
import panamax.api.model.ParameterCount;
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
        presets.put("gemma3n-e2b", gemma3nE2b());
        presets.put("qwen3-30b-a3b", qwen3MoeThirtyB());
        return presets;
    }

    private static ModelSpec llama(String name, int layers, int hidden, int heads, int kvHeads, int headDim,
                                   int intermediate, int vocab, boolean tiedEmbeddings, int maxPositions) {
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < layers; i++) needs.add(LayerKvNeed.full(i, kvHeads, headDim));
        long params = decoderParams(layers, hidden, heads, kvHeads, headDim, intermediate, 2)
                + (long) vocab * hidden * (tiedEmbeddings ? 1 : 2) + hidden;
        long bytes = params * DType.BF16.byteSize();
        return new ModelSpec(name, "llama", needs, DType.BF16, bytes, vocab, maxPositions, ParameterCount.dense(params, bytes));
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
        long bytes = params * DType.BF16.byteSize();
        return new ModelSpec("gemma3-1b", "gemma3_text", needs, DType.BF16, bytes, vocab, 32768, ParameterCount.dense(params, bytes));
    }

    /**
     * Qwen3-30B-A3B shaped: 48 layers, each with 128 experts of width 768 of which a token is routed
     * to 8, q/k norms, an untied head. 30.5 B parameters, 3.3 B active per token.
     */
    private static ModelSpec qwen3MoeThirtyB() {
        int layers = 48, hidden = 2048, heads = 32, kvHeads = 4, headDim = 128, vocab = 151936, experts = 128, topK = 8, width = 768;
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < layers; i++) needs.add(LayerKvNeed.full(i, kvHeads, headDim));
        long shared = decoderParams(layers, hidden, heads, kvHeads, headDim, 0, 2) + (long) layers * 2 * headDim
                + (long) layers * experts * hidden + 2L * vocab * hidden + hidden;
        long expert = 3L * hidden * width;
        long total = shared + (long) layers * experts * expert, active = shared + (long) layers * topK * expert;
        long bytes = total * DType.BF16.byteSize();
        return new ModelSpec("qwen3-30b-a3b", "qwen3_moe", needs, DType.BF16, bytes, vocab, 40960,
                new ParameterCount(total, active, active * DType.BF16.byteSize()));
    }

    /**
     * Gemma-3n-E2B shaped (text decoder): every fifth layer full, the others sliding (512); the last
     * 10 of 30 layers read the KV of the last earlier layer of their type (18 sliding, 19 full).
     */
    private static ModelSpec gemma3nE2b() {
        int layers = 30, shared = 10, hidden = 2048, heads = 8, kvHeads = 2, headDim = 256, intermediate = 8192, vocab = 262400;
        int perLayer = 256, perLayerVocab = 262144, streams = 4, laurel = 64;
        List<LayerKvNeed> needs = new ArrayList<>();
        int lastSliding = -1, lastFull = -1;
        for (int i = 0; i < layers; i++) {
            boolean full = (i + 1) % 5 == 0;
            int window = full ? 0 : 512;
            int donor = i < layers - shared ? -1 : full ? lastFull : lastSliding;
            needs.add(new LayerKvNeed(i, window, kvHeads, headDim, donor));
            if (i < layers - shared) {
                if (full) lastFull = i; else lastSliding = i;
            }
        }
        // plus LAuReL, the per-layer input gate and projection, AltUp's coefficients and five more norms per layer,
        // the per-layer embeddings and their projection, and AltUp's stream projections
        long params = decoderParams(layers, hidden, heads, kvHeads, headDim, intermediate, 7)
                + (long) layers * (2L * hidden * laurel + 2L * hidden * perLayer + (long) streams * hidden + streams * streams * (streams + 1))
                + (long) vocab * hidden + (long) perLayerVocab * layers * perLayer + (long) hidden * layers * perLayer
                + 2L * (streams - 1) * hidden * hidden + hidden + perLayer;
        return new ModelSpec("gemma3n-e2b", "gemma3n_text", needs, DType.BF16, params * DType.BF16.byteSize(), vocab, 32768);
    }

    private static long decoderParams(int layers, int hidden, int heads, int kvHeads, int headDim, int intermediate, int norms) {
        long attention = (long) hidden * heads * headDim * 2 + (long) hidden * kvHeads * headDim * 2;
        long mlp = 3L * hidden * intermediate;
        return layers * (attention + mlp + (long) norms * hidden);
    }
}
