package panamax.bench.engine;

/**
 * What a forward pass must do, and so the fastest it can be on a machine: the larger of the bytes
 * it must stream from memory over the measured read bandwidth and its FLOPs over the measured FMA
 * peak. The work is fixed by the model; the yardsticks are passed in, since a run probes them more
 * than once. Immutable.
 *
 * @param bytes    bytes streamed by the pass (weights once, plus every row's KV cache)
 * @param flops    FLOPs of the pass
 */
record Floor(double bytes, double flops) {

    /** The floor of one pass, in seconds. */
    double seconds(MachineProbes.Yardsticks y) {
        return Math.max(bytes / y.readBytesPerSecond(), flops / y.flopsPerSecond());
    }

    /** Whether bandwidth, not FLOPs, sets the floor. */
    boolean memoryBound(MachineProbes.Yardsticks y) {
        return bytes / y.readBytesPerSecond() >= flops / y.flopsPerSecond();
    }

    double tokensPerSecond(int tokens, MachineProbes.Yardsticks y) {
        return tokens / seconds(y);
    }

    /**
     * One decode step of {@code batch} rows at {@code context} cached tokens: every weight matrix
     * once, the norms, one embedding row per row, and the caches' bytes (read in full by attention).
     */
    static Floor decodeStep(ModelShape s, WeightFormat f, int batch, double context, long kvBytesPerToken) {
        double bytes = weightBytes(s, f, batch) + batch * (double) f.matrixBytes(1, s.hidden()) + kvBytesPerToken * context;
        return new Floor(bytes, batch * s.flopsPerToken((long) context));
    }

    /**
     * A batch-1 prefill of {@code tokens} tokens that projects logits for the last one only: the
     * weights once; the matmuls of every position, causal attention over the earlier ones.
     */
    static Floor prefill(ModelShape s, WeightFormat f, int tokens) {
        double head = 2.0 * s.vocab() * s.hidden();
        double matmuls = (2.0 * s.matmulParams() - head) * tokens + head;
        double attention = 4.0 * s.layers() * s.heads() * s.headDim() * ((double) tokens * (tokens + 1) / 2);
        return new Floor(weightBytes(s, f, tokens) + tokens * (double) f.matrixBytes(1, s.hidden()), matmuls + attention);
    }

    /** Bytes of the matrices and norms a one-token pass streams (the embedding table is only indexed). */
    static double weightBytes(ModelShape s, WeightFormat f) {
        return weightBytes(s, f, 1);
    }

    /**
     * Bytes of the matrices and norms a pass over {@code tokens} tokens streams once: in a mixture of
     * experts the router and only the experts routed to (k for one token; the expected number of
     * distinct ones for several, see {@link ModelShape#expertsRead}), never all of them.
     */
    static double weightBytes(ModelShape s, WeightFormat f, int tokens) {
        double mlp = 2.0 * f.matrixBytes(s.intermediate(), s.hidden()) + f.matrixBytes(s.hidden(), s.intermediate());
        if (s.moe()) mlp = s.expertsRead(tokens) * mlp + f.matrixBytes(s.experts(), s.hidden()) + 2.0 * 2 * s.headDim();
        double perLayer = f.matrixBytes(s.qOut(), s.hidden()) + 2.0 * f.matrixBytes(s.kvOut(), s.hidden())
                + f.matrixBytes(s.hidden(), s.qOut()) + mlp + 2.0 * 2 * s.hidden();
        return s.layers() * perLayer + f.matrixBytes(s.vocab(), s.hidden()) + 2.0 * s.hidden();
    }
}
