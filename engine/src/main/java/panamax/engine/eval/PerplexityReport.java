package panamax.engine.eval;

import java.util.Locale;

/**
 * What {@link Perplexity#measure} found.
 *
 * @param tokens  tokens predicted (windows × window)
 * @param windows windows scored
 * @param window  tokens per window
 * @param meanNll mean negative log-likelihood per predicted token, in nats
 */
public record PerplexityReport(long tokens, int windows, int window, double meanNll) {
    /** {@code exp(meanNll)}. */
    public double perplexity() {
        return Math.exp(meanNll);
    }

    /** One JSON object on one line. */
    public String toJson() {
        return String.format(Locale.ROOT, "{\"tokens\": %d, \"windows\": %d, \"window\": %d, \"mean_nll\": %.6f, \"perplexity\": %.4f}",
                tokens, windows, window, meanNll, perplexity());
    }
}
