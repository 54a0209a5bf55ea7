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
 * @param draftLength tokens drafted per row and step: a fixed K, or a per-row budget that adapts
 * @param draftModel  the draft model's directory, for a drafter that needs one
 * @param reason      why this drafter
 * @param refusals    drafters considered and refused
 */
public record SpeculationPlan(ChosenPlugin drafter, PluginParams params, DraftLength draftLength, Optional<Path> draftModel, String reason,
                              List<Refusal> refusals) {
    public SpeculationPlan {
        refusals = List.copyOf(refusals);
    }

    /** The most tokens a row drafts in one step (the KV room a step reserves per row beyond its newest token). */
    public int draftTokens() {
        return draftLength.max();
    }

    /** Lines for people ({@code generate} prints them on standard error, {@code serve} at start). */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add("speculative: drafter " + drafter.id() + " (" + drafter.module() + ", " + drafter.origin() + "), "
                + draftLength.describe() + (params.values().isEmpty() ? "" : ", " + paramsText())
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
        m.put("draft_tokens", draftLength.max());
        m.put("draft_length", draftLength.toMap());
        m.put("params", params.values());
        draftModel.ifPresent(p -> m.put("draft_model", p.toString()));
        m.put("reason", reason);
        return m;
    }
}
