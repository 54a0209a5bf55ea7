package panamax.engine.speculative;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the user asked of speculative decoding ({@code --draft ID}, {@code --draft-model DIR},
 * {@code --num-draft-tokens K}, drafter params such as {@code --ngram-max}).
 *
 * @param drafter     a drafter id, or empty to let a draft model pick its drafter
 * @param draftModel  the draft model's directory
 * @param draftTokens tokens drafted per row and step; empty for the drafter's default
 * @param params      drafter parameters by name
 */
public record SpeculationRequest(Optional<String> drafter, Optional<Path> draftModel, OptionalInt draftTokens, Map<String, String> params) {
    /** The most tokens a row may draft per step. */
    public static final int MAX_DRAFT_TOKENS = 64;

    public SpeculationRequest {
        params = Map.copyOf(params);
        if (draftTokens.isPresent() && (draftTokens.getAsInt() < 1 || draftTokens.getAsInt() > MAX_DRAFT_TOKENS)) {
            throw new panamax.api.error.InvalidParameterException("num_draft_tokens", draftTokens.getAsInt(), "1 to " + MAX_DRAFT_TOKENS);
        }
    }

    /** No speculation asked for. */
    public static SpeculationRequest none() {
        return new SpeculationRequest(Optional.empty(), Optional.empty(), OptionalInt.empty(), Map.of());
    }

    public boolean requested() {
        return drafter.isPresent() || draftModel.isPresent();
    }
}
