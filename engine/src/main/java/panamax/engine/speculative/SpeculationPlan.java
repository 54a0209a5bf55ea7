package panamax.engine.speculative;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import panamax.api.kv.PluginParams;
import panamax.api.plan.ChosenPlugin;
import panamax.api.plan.Refusal;

/**
 * How speculative decoding runs, decided by {@link SpeculationPlanner} from declarations.
 *
 * @param drafter     the chosen drafter plugin
 * @param params      its resolved parameters
 * @param draftTokens tokens drafted per row and step (K)
 * @param draftModel  the draft model's directory, for a drafter that needs one
 * @param reason      why this drafter
 * @param refusals    drafters considered and refused
 */
public record SpeculationPlan(ChosenPlugin drafter, PluginParams params, int draftTokens, Optional<Path> draftModel, String reason,
                              List<Refusal> refusals) {
    public SpeculationPlan {
        refusals = List.copyOf(refusals);
    }

    /** Lines for people ({@code generate} prints them on standard error, {@code serve} at start). */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add("speculative: drafter " + drafter.id() + " (" + drafter.module() + ", " + drafter.origin() + "), "
                + draftTokens + " draft tokens per step" + (params.values().isEmpty() ? "" : ", " + paramsText())
                + draftModel.map(p -> ", draft model " + p).orElse("") + " - " + reason);
        for (Refusal r : refusals) lines.add("  refused " + r.option() + ": " + r.reason());
        return lines;
    }

    /** The params as {@code name=value}, by name (PluginParams' own text follows its map's order). */
    private String paramsText() {
        StringBuilder sb = new StringBuilder();
        new java.util.TreeMap<>(params.values()).forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ", ").append(k).append('=').append(v));
        return sb.toString();
    }

    /** JSON-ready form. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("drafter", drafter.id());
        m.put("draft_tokens", draftTokens);
        m.put("params", params.values());
        draftModel.ifPresent(p -> m.put("draft_model", p.toString()));
        m.put("reason", reason);
        return m;
    }
}
