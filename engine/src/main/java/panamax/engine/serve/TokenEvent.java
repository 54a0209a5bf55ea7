package panamax.engine.serve;

import java.util.List;

/**
 * One generated token.
 *
 * @param id        the token id
 * @param text      text that became final with it: whole characters, never part of a stop string; may be empty
 * @param logprob   its log-probability under the model's distribution (before sampling filters), or NaN when not asked
 * @param top       the most likely tokens at that step with their log-probabilities, most likely first; empty when not asked
 */
public record TokenEvent(int id, String text, double logprob, List<Alternative> top) {
    public TokenEvent {
        top = List.copyOf(top);
    }

    /** A candidate token and its log-probability. */
    public record Alternative(int id, double logprob) {
    }
}
