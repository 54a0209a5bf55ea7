package panamax.app.cli;

import java.io.PrintWriter;
import java.util.Locale;
import panamax.engine.generate.GenerationListener;

/**
 * Prints generated text as it streams (to the command's output) and, for prompts that take more
 * than one prefill pass, a progress line on the error stream. Single row only.
 */
final class StreamPrinter implements GenerationListener {
    private final PrintWriter out;
    private final PrintWriter err;
    private final int prefillChunk;
    private final long start = System.nanoTime();
    private boolean progressShown;

    StreamPrinter(PrintWriter out, PrintWriter err, int prefillChunk) {
        this.out = out;
        this.err = err;
        this.prefillChunk = prefillChunk;
    }

    @Override
    public void onPrefill(int done, int total) {
        if (total <= prefillChunk) return;
        int width = 30;
        int filled = (int) ((long) width * done / total);
        double seconds = (System.nanoTime() - start) / 1e9;
        err.print(String.format(Locale.ROOT, "\rprefill [%s%s] %d/%d tokens, %.1f tok/s", "#".repeat(filled),
                " ".repeat(width - filled), done, total, seconds > 0 ? done / seconds : 0));
        if (done == total) err.println();
        err.flush();
        progressShown = true;
    }

    @Override
    public void onText(int row, String delta) {
        out.print(delta);
        out.flush();
    }

    boolean progressShown() {
        return progressShown;
    }
}
