package panamax.engine.bench;

import java.util.Locale;

/**
 * The dimensions of a Llama-shaped decoder, and what one token costs it: weight bytes streamed and
 * FLOPs. Immutable.
 *
 * @param layers       decoder layers
 * @param hidden       hidden size
 * @param heads        query heads
 * @param kvHeads      key/value heads (GQA)
 * @param headDim      dimension per head
 * @param intermediate MLP width
 * @param vocab        vocabulary size
 */
record ModelShape(int layers, int hidden, int heads, int kvHeads, int headDim, int intermediate, int vocab) {
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
    }

    /**
     * The named presets: {@code 1b} is Llama-3.2-1B's shape with a 32k vocabulary; {@code 125m} a
     * quick run; {@code tiny} for tests (seconds).
     */
    static ModelShape preset(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "1b" -> new ModelShape(16, 2048, 32, 8, 64, 8192, 32000);
            case "125m" -> new ModelShape(12, 768, 12, 4, 64, 3072, 32000);
            case "tiny" -> new ModelShape(2, 128, 4, 2, 32, 256, 512);
            default -> throw new IllegalArgumentException("--preset: expected 1b, 125m or tiny, found " + name);
        };
    }

    int qOut() {
        return heads * headDim;
    }

    int kvOut() {
        return kvHeads * headDim;
    }

    /** Parameters of the linear layers one decode step multiplies by (all layers plus the output head). */
    long matmulParams() {
        long perLayer = (long) hidden * qOut() + 2L * hidden * kvOut() + (long) qOut() * hidden + 3L * hidden * intermediate;
        return layers * perLayer + (long) vocab * hidden;
    }

    /** All parameters, with an untied output head. */
    long params() {
        return matmulParams() + (long) vocab * hidden + (2L * layers + 1) * hidden;
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
        return String.format(Locale.ROOT, "%d layers, hidden %d, heads %d/%d, head dim %d, intermediate %d, vocab %d (%.0fM parameters)",
                layers, hidden, heads, kvHeads, headDim, intermediate, vocab, params() / 1e6);
    }

    private static void positive(String flag, int v) {
        if (v <= 0) throw new IllegalArgumentException(flag + ": expected a positive integer, found " + v);
    }
}
