package panamax.engine.speculative;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many tokens a row drafts per step: a fixed count ({@code --num-draft-tokens K}), or a
 * per-row budget that adapts to what the row's drafts earn, the "heuristic" schedule of Hugging
 * Face transformers' assisted generation: +2 after a step whose full budget was accepted, −1 after
 * a step that rejected a draft token, kept between {@code 1} and {@link #max}.
 *
 * <p>Why adapt: a verification pass costs less per drafted token the more tokens it checks, so a
 * row that copies its prompt gains from long drafts (demo model, copying prompt: 1.5-1.6× plain at K 4,
 * 1.9-2.0× at 8, 2.2× at 16), while a row whose drafts miss pays for every token drafted past the
 * first rejection. The budget follows each row: long where drafts hold, short where they break.
 * {@link SpeculationPlanner} gives it to drafters without a draft model (whose drafts cost nothing
 * next to a target pass); a draft model pays a pass per drafted token and keeps a fixed count.
 *
 * @param start the budget of a new row (the count itself when fixed)
 * @param max   the most tokens a row drafts in a step ({@code start} when fixed); the KV room a
 *              step reserves per row
 */
public record DraftLength(int start, int max) {
    /** The adaptive ceiling, as a multiple of the drafter's default count. */
    static final int ADAPTIVE_CEILING = 4;

    public DraftLength {
        if (start < 1 || max < start || max > SpeculationRequest.MAX_DRAFT_TOKENS) {
            throw new IllegalArgumentException("draft length: expected 1 <= start <= max <= " + SpeculationRequest.MAX_DRAFT_TOKENS
                    + ", found start " + start + ", max " + max);
        }
    }

    /** Exactly {@code k} tokens per row and step whenever the drafter has them. */
    public static DraftLength fixed(int k) {
        return new DraftLength(k, k);
    }

    /** Starts at {@code start}, adapts per row up to {@code ADAPTIVE_CEILING × start} (at most the request limit). */
    public static DraftLength adaptiveFrom(int start) {
        return new DraftLength(start, Math.min(SpeculationRequest.MAX_DRAFT_TOKENS, start * ADAPTIVE_CEILING));
    }

    public boolean adaptive() {
        return max > start;
    }

    /**
     * A row's budget after a verified step.
     *
     * @param budget   its budget in that step
     * @param drafted  tokens it drafted (at most {@code budget}; fewer when the drafter had no more or the step was narrower)
     * @param accepted of those, tokens verification accepted
     */
    public int next(int budget, int drafted, int accepted) {
        if (!adaptive() || drafted == 0) return budget;
        if (accepted < drafted) return Math.max(1, budget - 1);
        // all accepted: grow only when the draft filled the budget (a short draft says nothing of a longer one)
        return drafted >= budget ? Math.min(max, budget + 2) : budget;
    }

    /** For people: "4 draft tokens per step", or the schedule. */
    public String describe() {
        return adaptive()
                ? "draft length per row from " + start + ", +2 after a fully accepted draft, -1 after a rejection, at most " + max
                        + " (transformers' heuristic schedule; --num-draft-tokens K fixes it)"
                : start + " draft tokens per step";
    }

    /** JSON-ready form. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("schedule", adaptive() ? "adaptive" : "fixed");
        m.put("start", start);
        m.put("max", max);
        return m;
    }
}
