package panamax.engine.bench;

/**
 * The fastest a forward pass can be on this machine: the larger of the bytes it must stream from
 * memory over the measured read bandwidth and its FLOPs over the measured FMA peak. Immutable.
 *
 * @param seconds  the floor of one pass
 * @param memoryBound whether bandwidth, not FLOPs, sets it
 * @param bytes    bytes streamed by the pass (weights once, plus every row's KV cache)
 * @param flops    FLOPs of the pass
 */
record Floor(double seconds, boolean memoryBound, double bytes, double flops) {

    static Floor of(double bytes, double flops, MachineProbes.Yardsticks y) {
        double memory = bytes / y.readBytesPerSecond(), compute = flops / y.flopsPerSecond();
        return new Floor(Math.max(memory, compute), memory >= compute, bytes, flops);
    }

    /**
     * One decode step of {@code batch} rows at {@code context} cached tokens: every weight matrix
     * once, the norms, one embedding row per row, and the caches' bytes (read in full by attention).
     */
    static Floor decodeStep(ModelShape s, WeightFormat f, int batch, double context, long kvBytesPerToken, MachineProbes.Yardsticks y) {
        double bytes = weightBytes(s, f) + batch * (double) f.matrixBytes(1, s.hidden()) + kvBytesPerToken * context;
        return of(bytes, batch * s.flopsPerToken((long) context), y);
    }

    /**
     * A batch-1 prefill of {@code tokens} tokens that projects logits for the last one only: the
     * weights once; the matmuls of every position, causal attention over the earlier ones.
     */
    static Floor prefill(ModelShape s, WeightFormat f, int tokens, MachineProbes.Yardsticks y) {
        double head = 2.0 * s.vocab() * s.hidden();
        double matmuls = (2.0 * s.matmulParams() - head) * tokens + head;
        double attention = 4.0 * s.layers() * s.heads() * s.headDim() * ((double) tokens * (tokens + 1) / 2);
        return of(weightBytes(s, f) + tokens * (double) f.matrixBytes(1, s.hidden()), matmuls + attention, y);
    }

    /** Bytes of the matrices and norms a pass streams once (the embedding table is only indexed). */
    static double weightBytes(ModelShape s, WeightFormat f) {
        double perLayer = f.matrixBytes(s.qOut(), s.hidden()) + 2.0 * f.matrixBytes(s.kvOut(), s.hidden())
                + f.matrixBytes(s.hidden(), s.qOut()) + 2.0 * f.matrixBytes(s.intermediate(), s.hidden())
                + f.matrixBytes(s.hidden(), s.intermediate()) + 2.0 * 2 * s.hidden();
        return s.layers() * perLayer + f.matrixBytes(s.vocab(), s.hidden()) + 2.0 * s.hidden();
    }

    double tokensPerSecond(int tokens) {
        return tokens / seconds;
    }
}
