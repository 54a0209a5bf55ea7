package panamax.engine.parity;

import java.util.Locale;

/**
 * How far a model's logits are from a reference.
 *
 * @param maxAbsDiffSingle   max |Δlogit| over the single prompt's positions
 * @param maxAbsDiffSteps    max |Δlogit| over the KV-cached greedy steps
 * @param maxAbsDiffBatch    max |Δlogit| over the left-padded batch's last logits and steps
 * @param greedyMatch        fraction of greedy positions whose argmax equals the reference id
 * @param greedyPositions    greedy positions compared
 * @param decisiveMismatches positions whose argmax differs although the reference's top-1/top-2
 *                           margin exceeds twice the measured error (a real divergence, not a near tie)
 */
public record ParityReport(double maxAbsDiffSingle, double maxAbsDiffSteps, double maxAbsDiffBatch, double greedyMatch,
                           int greedyPositions, int decisiveMismatches) {
    /** The largest of the three differences. */
    public double maxAbsDiff() {
        return Math.max(maxAbsDiffSingle, Math.max(maxAbsDiffSteps, maxAbsDiffBatch));
    }

    /** One JSON object, the output of {@code panamax parity}. */
    public String toJson() {
        return String.format(Locale.ROOT, "{\"max_abs_diff_single\": %.3e, \"max_abs_diff_steps\": %.3e, \"max_abs_diff_batch\": %.3e, "
                + "\"greedy_match\": %.4f, \"greedy_positions\": %d, \"decisive_mismatches\": %d}",
                maxAbsDiffSingle, maxAbsDiffSteps, maxAbsDiffBatch, greedyMatch, greedyPositions, decisiveMismatches);
    }
}
