package panamax.bench.engine;

import java.util.Locale;

/**
 * One backend op's share of a decode step in the instrumented run. Immutable.
 *
 * @param weights      weight format label
 * @param batch        rows
 * @param op           op name with its arguments' dtypes and shapes
 * @param msPerStep    wall-clock milliseconds the op takes per step (all its calls)
 * @param callsPerStep calls per step
 * @param share        fraction of the step's wall-clock time
 * @param stepMs       the instrumented step's milliseconds
 */
record OpShare(String weights, int batch, String op, double msPerStep, double callsPerStep, double share, double stepMs) {

    String json() {
        return String.format(Locale.ROOT, "{\"kind\":\"op\",\"weights\":\"%s\",\"batch\":%d,\"op\":\"%s\",\"ms_per_step\":%.4f,"
                        + "\"calls_per_step\":%.2f,\"share\":%.4f,\"step_ms\":%.4f}",
                weights, batch, op, msPerStep, callsPerStep, share, stepMs);
    }

    static String tableHeader() {
        return "| weights | batch | op (argument dtypes and shapes)                              | calls/step | ms/step | % of step |\n"
             + "| ------- | ----- | ------------------------------------------------------------ | ---------- | ------- | --------- |";
    }

    String tableLine() {
        return String.format(Locale.ROOT, "| %-7s | %5d | %-60s | %10.1f | %7.2f | %8.1f%% |", weights, batch, op, callsPerStep,
                msPerStep, 100 * share);
    }
}
