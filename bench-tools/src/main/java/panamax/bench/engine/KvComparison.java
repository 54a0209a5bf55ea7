package panamax.bench.engine;

import java.util.Locale;

/**
 * The KV scheme's decode rate against the identity cache's in the same invocation (same loaded
 * model, same batch and context, measured one after the other): the scheme must decode at least as
 * fast as the cache it compresses. Immutable.
 *
 * @param weights          weight format label
 * @param scheme           the KV scheme, as the table's header names it (codec and parameters)
 * @param batch            rows
 * @param context          cached tokens per row when timing began
 * @param baselineTokensPerSecond the identity cache's aggregate tokens per second (mean over the timed steps)
 * @param tokensPerSecond  the scheme's, likewise
 * @param baselineBestTokensPerSecond the identity cache's fastest single step, as a rate
 * @param bestTokensPerSecond the scheme's fastest single step, as a rate
 */
record KvComparison(String weights, String scheme, int batch, int context, double baselineTokensPerSecond, double tokensPerSecond,
                    double baselineBestTokensPerSecond, double bestTokensPerSecond) {
    /** The scheme must reach this fraction of the identity cache's rate. */
    static final double TARGET = 1.0;

    double ratio() {
        return tokensPerSecond / baselineTokensPerSecond;
    }

    double bestRatio() {
        return bestTokensPerSecond / baselineBestTokensPerSecond;
    }

    /** Judged on the means, as the floor targets are. */
    String result() {
        return ratio() >= TARGET ? "PASS" : "MISS";
    }

    String json() {
        return String.format(Locale.ROOT, "{\"kind\":\"kv_comparison\",\"weights\":\"%s\",\"kv\":\"%s\",\"batch\":%d,\"context\":%d,"
                        + "\"identity_tok_per_s\":%.4f,\"tok_per_s\":%.4f,\"ratio\":%.4f,\"identity_best_step_tok_per_s\":%.4f,"
                        + "\"best_step_tok_per_s\":%.4f,\"best_ratio\":%.4f,\"target\":\">= %.2fx identity\",\"result\":\"%s\"}",
                weights, scheme, batch, context, baselineTokensPerSecond, tokensPerSecond, ratio(), baselineBestTokensPerSecond,
                bestTokensPerSecond, bestRatio(), TARGET, result());
    }

    static String tableHeader() {
        return "| weights   | batch | context | identity tok/s | KV tok/s | ratio | best-step ratio | target              | result |\n"
             + "| --------- | ----- | ------- | -------------- | -------- | ----- | --------------- | ------------------- | ------ |";
    }

    String tableLine() {
        return String.format(Locale.ROOT, "| %-9s | %5d | %7d | %14.2f | %8.2f | %4.2fx | %14.2fx | %-19s | %-6s |", weights, batch, context,
                baselineTokensPerSecond, tokensPerSecond, ratio(), bestRatio(), String.format(Locale.ROOT, ">= %.2fx identity", TARGET),
                result());
    }
}
