package panamax.bench.engine;

import java.util.Locale;

/**
 * One line of the decode benchmark's result: a measured rate, its floor and, where the project sets one,
 * the target and whether it was met. Immutable.
 *
 * @param weights        weight format label
 * @param phase          {@code decode} or {@code prefill}
 * @param batch          rows
 * @param context        cached tokens per row when timing began (prefill: tokens prefilled)
 * @param tokensPerSecond aggregate tokens per second over all rows (mean over the timed steps)
 * @param bestTokensPerSecond the same rate of the fastest single step (prefill: the one pass)
 * @param floorTokensPerSecond the same rate at the floor
 * @param memoryBound    whether the floor is set by read bandwidth
 * @param target         the target in words, or empty
 * @param met            whether the target is met (meaningless without one)
 * @param warmupSteps    untimed decode steps run before the timed ones (prefill: 0)
 */
record BenchRow(String weights, String phase, int batch, int context, double tokensPerSecond, double bestTokensPerSecond,
                double floorTokensPerSecond,
                boolean memoryBound, String target, boolean met, int warmupSteps) {

    double fractionOfFloor() {
        return tokensPerSecond / floorTokensPerSecond;
    }

    String result() {
        return target.isEmpty() ? "" : met ? "PASS" : "MISS";
    }

    String json() {
        return String.format(Locale.ROOT, "{\"weights\":\"%s\",\"phase\":\"%s\",\"batch\":%d,\"context\":%d,\"tok_per_s\":%.4f,\"best_step_tok_per_s\":%.4f,"
                        + "\"floor_tok_per_s\":%.4f,\"fraction_of_floor\":%.4f,\"bound\":\"%s\",\"target\":\"%s\",\"result\":\"%s\",\"warmup_steps\":%d}",
                weights, phase, batch, context, tokensPerSecond, bestTokensPerSecond, floorTokensPerSecond, fractionOfFloor(),
                memoryBound ? "memory" : "compute", target, result(), warmupSteps);
    }

    static String tableHeader() {
        return "| weights   | phase   | batch | context | tok/s (all rows) | best step | floor tok/s | % of floor | best % | floor set by | target                | result |\n"
             + "| --------- | ------- | ----- | ------- | ---------------- | --------- | ----------- | ---------- | ------ | ------------ | --------------------- | ------ |";
    }

    String tableLine() {
        return String.format(Locale.ROOT, "| %-9s | %-7s | %5d | %7d | %16.2f | %9.2f | %11.2f | %9.1f%% | %5.0f%% | %-12s | %-21s | %-6s |",
                weights, phase, batch, context, tokensPerSecond, bestTokensPerSecond, floorTokensPerSecond, 100 * fractionOfFloor(),
                100 * bestTokensPerSecond / floorTokensPerSecond,
                memoryBound ? "read bw" : "FMA peak", target, result());
    }
}
