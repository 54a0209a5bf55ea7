package panamax.engine.serve;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.plan.Batching;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.ResolvedExecution;

/**
 * The serving decisions for a resolved execution, each with its reason: whether requests share a
 * continuously batched decode or run one at a time, whether finished rows' KV is kept for prefix
 * reuse, and the memory split that admission enforces. Decided from the layouts' declared
 * capabilities only; nothing is instantiated.
 *
 * @param execution         the plan of one row at the model's context
 * @param batching          continuous when every layout the plan uses can filter, merge and extract rows
 * @param batchingReason    why
 * @param prefixReuse       whether a request may start from a cached row's KV
 * @param prefixReuseReason why
 * @param config            the limits admission enforces
 */
public record ServingPlan(ResolvedExecution execution, Batching batching, String batchingReason, boolean prefixReuse,
                          String prefixReuseReason, ServingConfig config) {
    /**
     * Decides how {@code execution}'s model is served under {@code config}.
     *
     * @param capabilities the declared capabilities of a layout id the plan names
     */
    public static ServingPlan resolve(ResolvedExecution execution, Function<String, LayoutCapabilities> capabilities,
                                      ServingConfig config) {
        Map<String, LayoutCapabilities> used = new LinkedHashMap<>();
        for (LayerPlan layer : execution.layers()) used.computeIfAbsent(layer.layout(), capabilities);
        List<String> notBatchable = new ArrayList<>(), notTrimmable = new ArrayList<>(), bounded = new ArrayList<>();
        used.forEach((id, caps) -> {
            if (!caps.batchable()) notBatchable.add(id);
            if (!caps.trimmable()) notTrimmable.add(id);
            if (caps.bounded()) bounded.add(id);
        });
        String layouts = String.join(", ", new TreeSet<>(used.keySet()));
        Batching batching;
        String batchingReason;
        if (!notBatchable.isEmpty()) {
            batching = Batching.SERIAL;
            batchingReason = "layout " + String.join(", ", notBatchable) + " does not declare batchable (filter, merge and extract rows):"
                    + " requests run one at a time";
        } else if (config.maxBatch() == 1) {
            batching = Batching.SERIAL;
            batchingReason = "--max-batch 1: requests run one at a time";
        } else {
            batching = Batching.CONTINUOUS;
            batchingReason = "every layout (" + layouts + ") declares batchable: new requests are prefilled as a cohort"
                    + " and merged into the running batch between decode steps, up to " + config.maxBatch() + " rows";
        }
        boolean reuse;
        String reuseReason;
        if (config.prefixCacheShare() == 0) {
            reuse = false;
            reuseReason = "the prefix cache has no share of the budget";
        } else if (!notBatchable.isEmpty()) {
            reuse = false;
            reuseReason = "layout " + String.join(", ", notBatchable) + " cannot extract a finished row";
        } else if (!notTrimmable.isEmpty()) {
            reuse = false;
            reuseReason = "layout " + String.join(", ", notTrimmable) + " does not declare trimmable, so a cached row cannot be cut back to a shared prefix";
        } else {
            reuse = true;
            reuseReason = "finished rows' KV is kept (LRU, " + config.prefixCacheBytes() + " bytes); a prompt sharing a prefix with one"
                    + " starts from it and prefills only the rest"
                    + (bounded.isEmpty() ? "" : "; a row of bounded layout " + String.join(", ", bounded)
                    + " that wrapped its window cannot be trimmed and is prefilled in full");
        }
        return new ServingPlan(execution, batching, batchingReason, reuse, reuseReason, config);
    }

    /** The decisions as lines for people ({@code panamax plan --serve}). */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add("batching: " + batching.name().toLowerCase(java.util.Locale.ROOT) + " - " + batchingReason);
        lines.add("prefix reuse: " + (prefixReuse ? "on" : "off") + " - " + prefixReuseReason);
        lines.add("admission: a request waits until its projected KV bytes (prompt + max tokens, padded to the batch) fit "
                + config.memoryBudget() + " bytes next to the running rows and the prefix cache (evicted first); at most "
                + config.maxQueue() + " wait, more get 429");
        lines.add("prefill: passes of at most " + config.prefillChunk() + " tokens, with a decode step of the running rows between passes"
                + (config.prefillStepMillis() > 0 ? "; while rows are running, a pass is cut to about " + config.prefillStepMillis()
                        + " ms from the time per token of earlier passes" : ""));
        return lines;
    }

    /** The decisions as a JSON-ready map (the server's {@code /v1/models/{id}} and {@code plan --serve --json}). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batching", batching.name().toLowerCase(java.util.Locale.ROOT));
        m.put("batching_reason", batchingReason);
        m.put("prefix_reuse", prefixReuse);
        m.put("prefix_reuse_reason", prefixReuseReason);
        m.put("max_batch", config.maxBatch());
        m.put("memory_budget_bytes", config.memoryBudget());
        m.put("prefix_cache_bytes", prefixReuse ? config.prefixCacheBytes() : 0);
        m.put("max_queue", config.maxQueue());
        m.put("prefill_chunk", config.prefillChunk());
        m.put("prefill_step_ms", config.prefillStepMillis());
        return m;
    }
}
