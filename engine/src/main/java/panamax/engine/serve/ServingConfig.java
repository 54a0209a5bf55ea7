package panamax.engine.serve;

/**
 * How a {@link BatchScheduler} shares the model between requests.
 *
 * @param maxBatch          the most rows decoded together (running rows plus a prefilling cohort)
 * @param memoryBudget      bytes the KV cache of running rows and the prefix cache may take together
 * @param prefixCacheShare  the share of the budget kept for finished rows' KV (prefix reuse); 0 turns reuse off
 * @param maxQueue          requests that may wait for admission; one more is refused (HTTP 429)
 * @param prefillChunk      the most prompt tokens of a cohort per prefill forward pass; decode steps of running rows run
 *                          between passes
 * @param prefillStepMillis while rows are running, the length a cohort's prefill pass is cut to (from the time per token
 *                          of earlier passes), so that their streams keep flowing; 0 leaves passes at {@code prefillChunk}
 */
public record ServingConfig(int maxBatch, long memoryBudget, double prefixCacheShare, int maxQueue, int prefillChunk,
                            int prefillStepMillis) {
    /** The target length of a prefill pass while streams are running, when none is given. */
    public static final int DEFAULT_PREFILL_STEP_MILLIS = 1000;

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
        if (prefillStepMillis < 0) {
            throw new IllegalArgumentException("prefill step: expected 0 (no target) or more milliseconds, found " + prefillStepMillis);
        }
    }

    /**
     * Batch 8, a 4 GiB budget of which a quarter holds reusable prefixes, a queue of 64, prefill in passes of 512 tokens
     * at most, cut to about a second while streams are running.
     */
    public static ServingConfig defaults() {
        return new ServingConfig(8, DEFAULT_MEMORY_BUDGET, 0.25, 64, 512, DEFAULT_PREFILL_STEP_MILLIS);
    }

    /** Bytes the prefix cache may hold. */
    public long prefixCacheBytes() {
        return (long) (memoryBudget * prefixCacheShare);
    }

    public ServingConfig withMaxBatch(int rows) {
        return new ServingConfig(rows, memoryBudget, prefixCacheShare, maxQueue, prefillChunk, prefillStepMillis);
    }

    public ServingConfig withMemoryBudget(long bytes) {
        return new ServingConfig(maxBatch, bytes, prefixCacheShare, maxQueue, prefillChunk, prefillStepMillis);
    }

    public ServingConfig withPrefixCacheShare(double share) {
        return new ServingConfig(maxBatch, memoryBudget, share, maxQueue, prefillChunk, prefillStepMillis);
    }

    public ServingConfig withMaxQueue(int requests) {
        return new ServingConfig(maxBatch, memoryBudget, prefixCacheShare, requests, prefillChunk, prefillStepMillis);
    }

    public ServingConfig withPrefillChunk(int tokens) {
        return new ServingConfig(maxBatch, memoryBudget, prefixCacheShare, maxQueue, tokens, prefillStepMillis);
    }

    public ServingConfig withPrefillStepMillis(int millis) {
        return new ServingConfig(maxBatch, memoryBudget, prefixCacheShare, maxQueue, prefillChunk, millis);
    }
}
