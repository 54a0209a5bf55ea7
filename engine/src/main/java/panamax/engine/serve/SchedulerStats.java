package panamax.engine.serve;

/**
 * A scheduler's state after its latest step.
 *
 * @param runningRows      rows decoding or prefilling
 * @param queued           requests waiting for admission
 * @param kvBytes          bytes the running rows' KV layouts hold (their projection at the batch's width)
 * @param prefixCacheBytes bytes the prefix cache holds
 * @param prefixEntries    rows the prefix cache holds
 * @param memoryBudget     the budget both share
 * @param steps            forward passes run so far
 */
public record SchedulerStats(int runningRows, int queued, long kvBytes, long prefixCacheBytes, int prefixEntries, long memoryBudget,
                             long steps) {
}
