package panamax.engine.speculative;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import panamax.api.draft.DrafterCapabilities;
import panamax.api.draft.DrafterProvider;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.kv.PluginParams;
import panamax.api.plan.Refusal;
import panamax.engine.plugins.DiscoveredPlugin;
import panamax.engine.plugins.PluginRegistry;

/**
 * Chooses the drafter of speculative decoding from the drafters' declarations, and decides per
 * row whether it speculates, each with a reason. Reads declarations only. Thread-safe.
 *
 * {@snippet :
 * Optional<SpeculationPlan> plan = new SpeculationPlanner(registry).resolve(request);
 * }
 */
public final class SpeculationPlanner {
    private final Map<String, DiscoveredPlugin<DrafterProvider>> drafters = new TreeMap<>();

    public SpeculationPlanner(PluginRegistry registry) {
        for (DiscoveredPlugin<DrafterProvider> p : registry.drafters()) drafters.putIfAbsent(p.id(), p);
    }

    /**
     * The plan for {@code request}, or empty when it asks for no speculation.
     *
     * @throws UnsupportedCombinationException when the drafter is not installed, or needs a draft
     *         model that was not given (or was given one it cannot use)
     * @throws panamax.api.error.InvalidParameterException when a drafter parameter is not allowed
     */
    public Optional<SpeculationPlan> resolve(SpeculationRequest request) {
        if (!request.requested()) return Optional.empty();
        List<Refusal> refusals = new ArrayList<>();
        String chosen;
        String reason;
        if (request.drafter().isPresent()) {
            chosen = request.drafter().get();
            DiscoveredPlugin<DrafterProvider> p = drafters.get(chosen);
            if (p == null) {
                throw new UnsupportedCombinationException("drafter '" + chosen + "' is not installed",
                        List.of("installed drafters: " + (drafters.isEmpty() ? "none" : String.join(", ", drafters.keySet()))));
            }
            DrafterCapabilities caps = p.provider().capabilities();
            if (caps.needsDraftModel() && request.draftModel().isEmpty()) {
                throw new UnsupportedCombinationException("drafter '" + chosen + "' drafts with a second model: give --draft-model DIR",
                        List.of("drafter " + chosen + ": declares needsDraftModel"));
            }
            if (!caps.needsDraftModel() && request.draftModel().isPresent()) {
                throw new UnsupportedCombinationException("drafter '" + chosen + "' uses no draft model, yet --draft-model was given",
                        List.of("drafters that use one: " + withDraftModel()));
            }
            reason = "asked for by id; " + caps.description();
            drafters.keySet().stream().filter(id -> !id.equals(chosen)).forEach(id -> refusals.add(new Refusal("drafter " + id, "not asked for")));
        } else {
            List<String> candidates = withDraftModel();
            if (candidates.isEmpty()) {
                throw new UnsupportedCombinationException("--draft-model was given, but no installed drafter declares needsDraftModel",
                        List.of("installed drafters: " + (drafters.isEmpty() ? "none" : String.join(", ", drafters.keySet()))));
            }
            chosen = candidates.getFirst();
            reason = "--draft-model was given and drafter " + chosen + " is the first (by id) that declares needsDraftModel; "
                    + drafters.get(chosen).provider().capabilities().description();
            drafters.forEach((id, p) -> {
                if (id.equals(chosen)) return;
                refusals.add(new Refusal("drafter " + id, p.provider().capabilities().needsDraftModel()
                        ? "declares needsDraftModel too, but comes after " + chosen + " by id (choose it with --draft " + id + ")"
                        : "declares no draft model, and --draft-model was given"));
            });
        }
        DrafterProvider provider = drafters.get(chosen).provider();
        DrafterCapabilities caps = provider.capabilities();
        PluginParams params = PluginParams.of(request.params()).resolve(chosen, caps.params());
        // A count the user gave is honoured exactly. Otherwise drafts that cost nothing next to a target pass
        // (no draft model) get a per-row budget that grows where drafts hold; a draft model pays a pass per
        // drafted token, and on the 1b preset at acceptance 0.63 the adaptive budget lost to its fixed
        // default (1.30x against 1.42-1.47x plain), so it keeps the count it declares.
        DraftLength length = request.draftTokens().isPresent() ? DraftLength.fixed(request.draftTokens().getAsInt())
                : caps.needsDraftModel() ? DraftLength.fixed(caps.defaultDraftTokens())
                : DraftLength.adaptiveFrom(caps.defaultDraftTokens());
        return Optional.of(new SpeculationPlan(drafters.get(chosen).toChosen(), params, length, request.draftModel(), reason, refusals));
    }

    /**
     * Why a row decodes without drafts, or empty when it speculates. Rows that refuse still share
     * the batch's verification pass (with an empty draft), so they keep their batch.
     *
     * @param logprobs    whether the row reports per-token log-probabilities
     * @param constrained whether the row decodes under an output grammar
     */
    public static Optional<String> rowRefusal(boolean logprobs, boolean constrained) {
        if (logprobs) {
            return Optional.of("logprobs requested: log-probabilities are reported from each one-token decode step's logits,"
                    + " so this row decodes one token per step (it still shares the batch)");
        }
        if (constrained) {
            // the grammar's state advances token by token on the masked logits; a draft it forbids would only be rejected
            return Optional.of("output grammar (response_format, a forced tool call, --json-schema or --grammar): the mask"
                    + " follows the grammar one token at a time, so this row decodes one token per step (it still shares the batch)");
        }
        return Optional.empty();
    }

    private List<String> withDraftModel() {
        return drafters.entrySet().stream().filter(e -> e.getValue().provider().capabilities().needsDraftModel()).map(Map.Entry::getKey).toList();
    }
}
