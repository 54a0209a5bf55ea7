package panamax.engine.generate;

import java.util.Locale;

/**
 * Measurements of one {@link Generator#generate} call.
 *
 * @param promptTokens     real prompt tokens over all rows (padding excluded)
 * @param cachedTokens     prompt tokens already in a reused cache, so not prefilled
 * @param generatedTokens  tokens generated over all rows
 * @param prefillSeconds   time from the start to the first logits
 * @param decodeSeconds    time after the first logits until the end
 * @param peakKvBytes      the most bytes the KV layouts held (their projection for the columns in use)
 * @param peakMemoryBytes  the backend's peak tensor memory during the call (weights mapped from files excluded)
 * @param rows             rows generated together
 */
public record GenerationStats(int promptTokens, int cachedTokens, int generatedTokens, double prefillSeconds, double decodeSeconds,
                              long peakKvBytes, long peakMemoryBytes, int rows) {
    /** Prefilled prompt tokens (cached ones excluded) per second of prefill. */
    public double prefillTokensPerSecond() {
        return prefillSeconds > 0 ? (promptTokens - cachedTokens) / prefillSeconds : 0;
    }

    /** Tokens per second of the decode loop: tokens after each row's first, which prefill produced. */
    public double decodeTokensPerSecond() {
        int decoded = Math.max(0, generatedTokens - rows);
        return decodeSeconds > 0 ? decoded / decodeSeconds : 0;
    }

    /** One line for people: {@code prompt 12 tokens, 230.1 tok/s | decode ...}. */
    public String summary() {
        return String.format(Locale.ROOT,
                "prompt: %d tokens%s, %.1f tok/s | generation: %d tokens, %.1f tok/s | peak KV: %s | peak memory: %s",
                promptTokens, cachedTokens > 0 ? " (" + cachedTokens + " cached)" : "", prefillTokensPerSecond(), generatedTokens, decodeTokensPerSecond(),
                bytes(peakKvBytes), bytes(peakMemoryBytes));
    }

    private static String bytes(long n) {
        if (n < 1024) return n + " B";
        if (n < 1024L * 1024) return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
        if (n < 1024L * 1024 * 1024) return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
        return String.format(Locale.ROOT, "%.2f GiB", n / (1024.0 * 1024 * 1024));
    }
}
