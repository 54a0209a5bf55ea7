package panamax.engine.serve;

import panamax.engine.generate.GenerationResult;

/**
 * A finished request.
 *
 * @param result          its tokens, text and finish reason
 * @param promptTokens    prompt tokens, cached ones included
 * @param cachedTokens    prompt tokens taken from the prefix cache
 * @param plan            how it ran
 * @param queuedSeconds   from submission to admission
 * @param firstTokenSeconds from submission to the first token
 * @param totalSeconds    from submission to the end
 */
public record Completion(GenerationResult result, int promptTokens, int cachedTokens, RequestPlan plan, double queuedSeconds,
                         double firstTokenSeconds, double totalSeconds) {
    /** Generated tokens. */
    public int completionTokens() {
        return result.tokens().length;
    }
}
