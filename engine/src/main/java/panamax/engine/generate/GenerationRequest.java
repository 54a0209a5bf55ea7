package panamax.engine.generate;

import java.util.List;
import java.util.Set;
import panamax.engine.structured.Grammar;

/**
 * One prompt to continue.
 *
 * @param promptIds   the prompt's token ids (at least one)
 * @param sampling    how tokens are drawn
 * @param maxTokens   the most tokens to generate (at least one)
 * @param stopIds     ids that end the row (usually the tokenizer's EOS ids); not part of the text
 * @param stopStrings texts that end the row; trimmed from the text (needs a tokenizer)
 * @param constraint  a grammar the output must follow (structured outputs; needs a tokenizer), or null for none
 */
public record GenerationRequest(int[] promptIds, SamplingParams sampling, int maxTokens, Set<Integer> stopIds,
                                List<String> stopStrings, Grammar constraint) {
    public GenerationRequest {
        if (promptIds.length == 0) throw new IllegalArgumentException("the prompt must hold at least one token");
        if (maxTokens < 1) throw new IllegalArgumentException("max tokens must be at least 1, found " + maxTokens);
        promptIds = promptIds.clone();
        stopIds = Set.copyOf(stopIds);
        stopStrings = List.copyOf(stopStrings);
    }

    /** A request without an output constraint. */
    public GenerationRequest(int[] promptIds, SamplingParams sampling, int maxTokens, Set<Integer> stopIds, List<String> stopStrings) {
        this(promptIds, sampling, maxTokens, stopIds, stopStrings, null);
    }

    /** This request with its output constrained to {@code grammar} (null: unconstrained). */
    public GenerationRequest withConstraint(Grammar grammar) {
        return new GenerationRequest(promptIds, sampling, maxTokens, stopIds, stopStrings, grammar);
    }

    /** A request without stop strings. */
    public GenerationRequest(int[] promptIds, SamplingParams sampling, int maxTokens, Set<Integer> stopIds) {
        this(promptIds, sampling, maxTokens, stopIds, List.of());
    }
}
