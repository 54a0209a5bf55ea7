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
 * @param prefillSeconds   time the scheduler thread spent so far prefilling cohorts (merges and first tokens included)
 * @param decodeSeconds    time it spent so far in decode steps (sampling, handing out tokens and retiring rows included);
 *                         the rest of its time went to admission and waiting for work
 */
public record SchedulerStats(int runningRows, int queued, long kvBytes, long prefixCacheBytes, int prefixEntries, long memoryBudget,
                             long steps, double prefillSeconds, double decodeSeconds) {
}
