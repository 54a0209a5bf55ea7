package panamax.api.plan;

import java.util.Optional;
import panamax.api.model.ModelSpec;

/**
 * What the user asked for, before it is resolved against the discovered plugins.
 *
 * @param model         the model to run (its layers' KV needs)
 * @param backend       a backend id, or empty for the first available in preference order
 * @param kv            the KV scheme
 * @param batching      serial or continuous
 * @param method        autoregressive or speculative
 * @param batchSize     rows decoded together (for memory projection)
 * @param contextLength tokens per row to plan for; 0 means the model's maximum
 * @param memoryBudget  bytes the KV cache may take; 0 means no budget
 * @param logprobs      whether per-token log-probabilities are returned
 */
public record ExecutionRequirements(ModelSpec model, Optional<String> backend, KvScheme kv, Batching batching,
                                    Method method, int batchSize, long contextLength, long memoryBudget,
                                    boolean logprobs) {
    public ExecutionRequirements {
        if (batchSize <= 0) throw new IllegalArgumentException("batch size must be positive, found " + batchSize);
        if (contextLength < 0) throw new IllegalArgumentException("context length must be >= 0, found " + contextLength);
        if (memoryBudget < 0) throw new IllegalArgumentException("memory budget must be >= 0, found " + memoryBudget);
    }
}
