package panamax.bench.engine;

import java.util.Locale;

/**
 * The dimensions of a Llama-shaped decoder, or of a Qwen3-MoE-shaped one whose MLPs are routed
 * experts, and what one token costs it: weight bytes streamed and FLOPs. Immutable.
 *
 * @param layers       decoder layers
 * @param hidden       hidden size
 * @param heads        query heads
 * @param kvHeads      key/value heads (GQA)
 * @param headDim      dimension per head
 * @param intermediate MLP width (an expert's width in a mixture of experts)
 * @param vocab        vocabulary size
 * @param experts      experts per layer, 0 for a dense MLP
 * @param topK         experts each token is routed to (0 when dense)
 */
record ModelShape(int layers, int hidden, int heads, int kvHeads, int headDim, int intermediate, int vocab, int experts, int topK) {
    ModelShape {
        positive("--layers", layers);
        positive("--hidden", hidden);
        positive("--heads", heads);
        positive("--kv-heads", kvHeads);
        positive("--head-dim", headDim);
        positive("--intermediate", intermediate);
        positive("--vocab", vocab);
        if (heads % kvHeads != 0) {
            throw new IllegalArgumentException("--kv-heads: expected a divisor of --heads " + heads + ", found " + kvHeads);
        }
        if (headDim % 2 != 0) throw new IllegalArgumentException("--head-dim: expected an even number, found " + headDim);
        if (experts < 0 || (experts == 0) != (topK == 0) || topK > experts) {
            throw new IllegalArgumentException("--experts/--top-k: expected 0 < top-k <= experts (or both 0 for a dense MLP), found "
                    + topK + " of " + experts);
        }
    }

    /** A dense (Llama-shaped) decoder. */
    ModelShape(int layers, int hidden, int heads, int kvHeads, int headDim, int intermediate, int vocab) {
        this(layers, hidden, heads, kvHeads, headDim, intermediate, vocab, 0, 0);
    }

    /**
     * The named presets: {@code 1b} is Llama-3.2-1B's shape with a 32k vocabulary; {@code 125m} a
     * quick run; {@code tiny} for tests (seconds); {@code moe} is Qwen3-30B-A3B's shape (128 experts
     * of width 768, top 8, hidden 2048, 32/4 heads of 128) with 4 of its 48 layers and a 32k
     * vocabulary, so that its bf16 checkpoint (5.1 GB) fits a 24 GiB machine; {@code moe-tiny} for tests.
     */
    static ModelShape preset(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "1b" -> new ModelShape(16, 2048, 32, 8, 64, 8192, 32000);
            case "125m" -> new ModelShape(12, 768, 12, 4, 64, 3072, 32000);
            case "tiny" -> new ModelShape(2, 128, 4, 2, 32, 256, 512);
            case "moe" -> new ModelShape(4, 2048, 32, 4, 128, 768, 32000, 128, 8);
            case "moe-tiny" -> new ModelShape(2, 128, 4, 2, 32, 64, 512, 8, 2);
            default -> throw new IllegalArgumentException("--preset: expected 1b, 125m, tiny, moe or moe-tiny, found " + name);
        };
    }

    /** Whether the MLPs are routed experts. */
    boolean moe() {
        return experts > 0;
    }

    int qOut() {
        return heads * headDim;
    }

    int kvOut() {
        return kvHeads * headDim;
    }

    /** Parameters of one layer's attention projections. */
    long attentionParams() {
        return (long) hidden * qOut() + 2L * hidden * kvOut() + (long) qOut() * hidden;
    }

    /** Parameters of one expert (or of the dense MLP). */
    long mlpParams() {
        return 3L * hidden * intermediate;
    }

    /**
     * The experts one pass over {@code tokens} tokens reads per layer, expected under uniform routing:
     * {@code E·(1 − (1 − k/E)^tokens)} (a single token reads exactly k).
     */
    double expertsRead(int tokens) {
        return experts * (1 - Math.pow(1 - (double) topK / experts, tokens));
    }

    /** Parameters of the linear layers one token multiplies by (all layers' attention, its routed experts or the MLP, the output head). */
    long matmulParams() {
        long mlp = moe() ? (long) experts * hidden + topK * mlpParams() : mlpParams();
        return layers * (attentionParams() + mlp) + (long) vocab * hidden;
    }

    /** All parameters (every expert), with an untied output head. */
    long params() {
        long mlp = moe() ? (long) experts * hidden + experts * mlpParams() : mlpParams();
        long qkNorms = moe() ? 2L * headDim : 0;
        return layers * (attentionParams() + mlp + qkNorms) + 2L * vocab * hidden + (2L * layers + 1) * hidden;
    }

    /**
     * FLOPs of one token at {@code context} earlier tokens: 2 per weight of each matmul plus the
     * attention's scores and weighted sum (2·2·context·heads·headDim per layer). Norms, RoPE and
     * softmax are a few FLOPs per activation and left out.
     */
    double flopsPerToken(long context) {
        return 2.0 * matmulParams() + 4.0 * layers * (double) context * heads * headDim;
    }

    String describe() {
        if (moe()) {
            return String.format(Locale.ROOT, "%d layers, hidden %d, heads %d/%d, head dim %d, %d experts of width %d (top %d), vocab %d "
                    + "(%.0fM parameters, %.0fM active per token)", layers, hidden, heads, kvHeads, headDim, experts, intermediate, topK, vocab,
                    params() / 1e6, (matmulParams() + (long) vocab * hidden) / 1e6);
        }
        return String.format(Locale.ROOT, "%d layers, hidden %d, heads %d/%d, head dim %d, intermediate %d, vocab %d (%.0fM parameters)",
                layers, hidden, heads, kvHeads, headDim, intermediate, vocab, params() / 1e6);
    }

    private static void positive(String flag, int v) {
        if (v <= 0) throw new IllegalArgumentException(flag + ": expected a positive integer, found " + v);
    }
}
