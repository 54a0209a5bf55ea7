package panamax.api.plan;

import java.util.List;

/**
 * An immutable plan the engine runs exactly: the backend, each layer's layout and codec, the
 * mechanism, the projected memory, and every refused option with its reason.
 *
 * @param requirements  what was asked
 * @param backend       the chosen backend
 * @param plugins       every plugin the plan uses
 * @param layers        one entry per attention layer
 * @param kvBytesPerToken bytes one token of one row adds across all layers, at the planned context
 * @param projectedKvBytes KV bytes for {@code batchSize} rows at the planned context
 * @param maxContext    the longest context per row that fits the memory budget (the model's maximum without a budget)
 * @param refusals      options considered and refused
 */
public record ResolvedExecution(ExecutionRequirements requirements, ChosenPlugin backend, List<ChosenPlugin> plugins,
                                List<LayerPlan> layers, long kvBytesPerToken, long projectedKvBytes, long maxContext,
                                List<Refusal> refusals) {
    public ResolvedExecution {
        plugins = List.copyOf(plugins);
        layers = List.copyOf(layers);
        refusals = List.copyOf(refusals);
    }
}
