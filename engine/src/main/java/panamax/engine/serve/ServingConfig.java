package panamax.engine.serve;

/**
 * How a {@link BatchScheduler} shares the model between requests.
 *
 * @param maxBatch          the most rows decoded together (running rows plus a prefilling cohort)
 * @param memoryBudget      bytes the KV cache of running rows and the prefix cache may take together
 * @param prefixCacheShare  the share of the budget kept for finished rows' KV (prefix reuse); 0 turns reuse off
 * @param maxQueue          requests that may wait for admission; one more is refused (HTTP 429)
 * @param prefillChunk      prompt columns per prefill forward pass; decode steps of running rows run between chunks
 */
public record ServingConfig(int maxBatch, long memoryBudget, double prefixCacheShare, int maxQueue, int prefillChunk) {
    /** 4 GiB: the KV budget when none is given. */
    public static final long DEFAULT_MEMORY_BUDGET = 4L << 30;

    public ServingConfig {
        if (maxBatch < 1) throw new IllegalArgumentException("max batch: expected at least 1 row, found " + maxBatch);
        if (memoryBudget < 1) throw new IllegalArgumentException("memory budget: expected at least 1 byte, found " + memoryBudget);
        if (!(prefixCacheShare >= 0 && prefixCacheShare < 1)) {
            throw new IllegalArgumentException("prefix cache share: expected a fraction in [0, 1), found " + prefixCacheShare);
        }
        if (maxQueue < 1) throw new IllegalArgumentException("max queue: expected at least 1 request, found " + maxQueue);
        if (prefillChunk < 1) throw new IllegalArgumentException("prefill chunk: expected at least 1 token, found " + prefillChunk);
    }

    /** Batch 8, a 4 GiB budget of which a quarter holds reusable prefixes, a queue of 64, prefill in chunks of 512. */
    public static ServingConfig defaults() {
        return new ServingConfig(8, DEFAULT_MEMORY_BUDGET, 0.25, 64, 512);
    }

    /** Bytes the prefix cache may hold. */
    public long prefixCacheBytes() {
        return (long) (memoryBudget * prefixCacheShare);
    }

    public ServingConfig withMaxBatch(int rows) {
        return new ServingConfig(rows, memoryBudget, prefixCacheShare, maxQueue, prefillChunk);
    }

    public ServingConfig withMemoryBudget(long bytes) {
        return new ServingConfig(maxBatch, bytes, prefixCacheShare, maxQueue, prefillChunk);
    }

    public ServingConfig withPrefixCacheShare(double share) {
        return new ServingConfig(maxBatch, memoryBudget, share, maxQueue, prefillChunk);
    }

    public ServingConfig withMaxQueue(int requests) {
        return new ServingConfig(maxBatch, memoryBudget, prefixCacheShare, requests, prefillChunk);
    }

    public ServingConfig withPrefillChunk(int tokens) {
        return new ServingConfig(maxBatch, memoryBudget, prefixCacheShare, maxQueue, tokens);
    }
}
