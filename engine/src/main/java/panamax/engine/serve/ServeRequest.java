package panamax.engine.serve;

import panamax.engine.generate.GenerationRequest;

/**
 * One request for a {@link BatchScheduler}.
 *
 * @param generation  the prompt, sampling, token limit and stops
 * @param topLogprobs -1 for no log-probabilities; else each token's log-probability and that many
 *                    most likely alternatives (0 to {@link #MAX_TOP_LOGPROBS})
 * @param events      receives the row's tokens and its end, on the scheduler thread
 */
public record ServeRequest(GenerationRequest generation, int topLogprobs, RowEvents events) {
    /** The most alternatives a token reports, as OpenAI allows. */
    public static final int MAX_TOP_LOGPROBS = 20;

    public ServeRequest {
        if (topLogprobs < -1 || topLogprobs > MAX_TOP_LOGPROBS) {
            throw new IllegalArgumentException("top logprobs: expected -1 (none) to " + MAX_TOP_LOGPROBS + ", found " + topLogprobs);
        }
        java.util.Objects.requireNonNull(events, "events");
    }

    /** Whether each token reports its log-probability. */
    public boolean logprobs() {
        return topLogprobs >= 0;
    }
}
