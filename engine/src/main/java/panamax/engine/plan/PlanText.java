package panamax.engine.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import panamax.api.kv.PluginParams;
import panamax.api.model.ModelSpec;
import panamax.api.model.ParameterCount;
import panamax.api.plan.ChosenPlugin;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.Refusal;
import panamax.api.plan.ResolvedExecution;

/** Renders a {@link ResolvedExecution} as text for people: header, per-layer table, memory, plugins, refusals. */
public final class PlanText {
    private PlanText() {
    }

    /**
     * The plan as text.
     *
     * @param modelSource where the model came from, e.g. {@code built-in preset '1b'} or a directory
     */
    public static String render(ResolvedExecution plan, String modelSource) {
        ExecutionRequirements req = plan.requirements();
        ModelSpec model = req.model();
        long context = ExecutionPlanner.plannedContext(req, plan.maxContext());
        StringBuilder out = new StringBuilder();
        out.append("panamax plan\n");
        row(out, "model", model.name() + " (" + model.architecture() + "): " + model.layers().size() + " attention layers, "
                + model.activationType().name().toLowerCase(Locale.ROOT) + " activations, up to "
                + ByteSize.grouped(model.maxPositions()) + " positions, " + ByteSize.human(model.weightBytes()) + " of weights");
        if (model.parameters().counted()) row(out, "parameters", parametersText(model.parameters()));
        row(out, "source", modelSource);
        row(out, "backend", plan.backend().id() + "  " + plan.backend().module() + " (" + plan.backend().origin() + ")");
        row(out, "mechanism", req.method().name().toLowerCase(Locale.ROOT) + ", " + req.batching().name().toLowerCase(Locale.ROOT)
                + " batching, " + req.batchSize() + (req.batchSize() == 1 ? " row" : " rows") + (req.logprobs() ? ", logprobs" : ""));
        String codec = plan.layers().isEmpty() ? req.kv().codec() : codecText(plan.layers().getFirst());
        row(out, "kv codec", codec + req.kv().quantizedStart().stream().mapToObj(s -> ", starting at token " + s + " (rows begin in identity)").findFirst().orElse(""));
        row(out, "context", ByteSize.grouped(context) + " tokens per row" + (req.contextLength() > 0 ? " (--context)"
                : req.memoryBudget() > 0 && context < model.maxPositions() ? " (the most that fits the memory budget)" : " (the model's maximum)"));

        out.append("\nlayers\n");
        List<String[]> table = new ArrayList<>();
        table.add(new String[] {"layers", "layout", "codec", "bytes/token", "tokens kept", "why"});
        for (LayerGroups g : LayerGroups.of(plan.layers())) {
            LayerPlan p = g.plan();
            table.add(new String[] {g.label(), withParams(p.layout(), p.layoutParams()), codecText(p),
                    ByteSize.grouped(p.bytesPerToken()), ByteSize.grouped(p.storedTokens()), p.reason()});
        }
        table(out, table);

        out.append("\nmemory\n");
        row(out, "bytes per token", ByteSize.grouped(plan.kvBytesPerToken()) + (plan.kvBytesPerToken() == 0 && !plan.layers().isEmpty()
                ? " (every layer's window is full at this context; the next token replaces an old one)"
                : " (one row, all layers, next token at this context)"));
        row(out, "projected KV", ByteSize.grouped(plan.projectedKvBytes()) + " bytes (" + ByteSize.human(plan.projectedKvBytes()) + ") for "
                + req.batchSize() + " x " + ByteSize.grouped(context) + " tokens");
        row(out, "max context", maxContextText(plan));
        KvSharing sharing = KvSharing.of(plan);
        if (sharing.any()) row(out, "kv sharing", sharingText(plan, sharing));
        row(out, "weights", weightsText(model));

        out.append("\nplugins\n");
        List<String[]> plugins = new ArrayList<>();
        for (ChosenPlugin p : plan.plugins()) plugins.add(new String[] {p.kind(), p.id(), p.module(), p.origin()});
        table(out, plugins);

        out.append("\nrefused\n");
        if (plan.refusals().isEmpty()) out.append("  (nothing)\n");
        for (Refusal r : plan.refusals()) out.append("  - ").append(r.option()).append(": ").append(r.reason()).append('\n');
        return out.toString();
    }

    /** {@code layers 20-23,25-28 read layer 18's KV, layers 24,29 layer 19's; they store none: 123 bytes (49.2 %) less than a cache per layer}. */
    static String sharingText(ResolvedExecution plan, KvSharing sharing) {
        java.util.Map<Integer, List<Integer>> byDonor = new java.util.LinkedHashMap<>();
        sharing.borrowers().forEach((b, d) -> byDonor.computeIfAbsent(d, k -> new ArrayList<>()).add(b));
        List<String> parts = new ArrayList<>();
        byDonor.forEach((donor, borrowers) -> {
            boolean one = borrowers.size() == 1;
            String who = (one ? "layer " : "layers ") + LayerGroups.ranges(borrowers.stream().mapToInt(Integer::intValue).toArray());
            parts.add(parts.isEmpty() ? who + (one ? " reads" : " read") + " layer " + donor + "'s KV" : who + " layer " + donor + "'s");
        });
        long without = plan.projectedKvBytes() > Long.MAX_VALUE - sharing.savedBytes() ? Long.MAX_VALUE : plan.projectedKvBytes() + sharing.savedBytes();
        String share = without == 0 ? "" : String.format(Locale.ROOT, " (%.1f %%)", 100.0 * sharing.savedBytes() / without);
        return String.join(", ", parts) + "; " + (sharing.borrowers().size() == 1 ? "it stores" : "they store") + " none: "
                + ByteSize.grouped(sharing.savedBytes()) + " bytes" + share + " less than a cache per layer";
    }

    static String parametersText(ParameterCount p) {
        String total = ByteSize.count(p.total());
        return p.sparse() ? total + " in total, " + ByteSize.count(p.activePerToken()) + " active per token (routed experts only)"
                : total + ", all active per token";
    }

    /** Weights are resident in full (every expert) while a decode step reads only the active ones: the decode floor's bytes. */
    static String weightsText(ModelSpec model) {
        String resident = ByteSize.human(model.weightBytes()) + " resident";
        ParameterCount p = model.parameters();
        if (!p.sparse()) return resident + ", all read per decoded token";
        return resident + " (all experts), " + ByteSize.human(p.activeWeightBytes()) + " read per decoded token (the routed experts: the decode floor's bytes)";
    }

    static String maxContextText(ResolvedExecution plan) {
        ExecutionRequirements req = plan.requirements();
        if (req.memoryBudget() == 0) {
            return "no --memory-budget given (the model's maximum is " + ByteSize.grouped(req.model().maxPositions()) + ")";
        }
        String budget = "in " + ByteSize.human(req.memoryBudget()) + " for " + req.batchSize() + (req.batchSize() == 1 ? " row" : " rows");
        if (plan.maxContext() == MemoryProjection.UNBOUNDED) return "unbounded " + budget + " (every layer keeps a bounded window)";
        String beyond = plan.maxContext() > req.model().maxPositions() ? ", beyond the model's " + ByteSize.grouped(req.model().maxPositions()) : "";
        return ByteSize.grouped(plan.maxContext()) + " tokens per row " + budget + beyond;
    }

    private static String codecText(LayerPlan p) {
        return withParams(p.codec(), p.codecParams());
    }

    private static String withParams(String id, PluginParams params) {
        if (params.values().isEmpty()) return id;
        return id + "(" + params.values().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                .map(e -> e.getKey() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(", ")) + ")";
    }

    private static void row(StringBuilder out, String key, String value) {
        out.append(String.format(Locale.ROOT, "  %-16s%s%n", key, value));
    }

    /** Left-aligned columns, numbers right-aligned. */
    private static void table(StringBuilder out, List<String[]> rows) {
        int columns = rows.getFirst().length;
        int[] width = new int[columns];
        for (String[] r : rows) for (int c = 0; c < columns; c++) width[c] = Math.max(width[c], r[c].length());
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int c = 0; c < columns; c++) {
                boolean numeric = !r[c].isEmpty() && r[c].chars().allMatch(ch -> Character.isDigit(ch) || ch == ',') && c > 0;
                String cell = c == columns - 1 ? r[c] : numeric ? " ".repeat(width[c] - r[c].length()) + r[c] : r[c] + " ".repeat(width[c] - r[c].length());
                line.append(cell).append(c == columns - 1 ? "" : "  ");
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
