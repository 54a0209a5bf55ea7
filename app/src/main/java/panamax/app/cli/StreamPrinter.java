package panamax.app.cli;

import java.io.PrintWriter;
import panamax.engine.generate.GenerationListener;

/**
 * Prints generated text as it streams (to the command's output) and, for prompts that take more
 * than one prefill pass and where bars are wanted, a prefill bar on the error stream. Single row only.
 */
final class StreamPrinter implements GenerationListener {
    private final PrintWriter out;
    private final int prefillChunk;
    private final ProgressBar bar;
    private boolean progressShown;

    /** With {@code progress} false nothing goes to {@code err}: the caller decided no bars (not a terminal, or --progress never). */
    StreamPrinter(PrintWriter out, PrintWriter err, int prefillChunk, boolean progress) {
        this.out = out;
        this.prefillChunk = prefillChunk;
        this.bar = progress ? new ProgressBar(err, "prefill") : null;
    }

    /** For batches, whose text prints when done: the prefill bar only. */
    static GenerationListener prefillOnly(PrintWriter err, int prefillChunk, boolean progress) {
        if (!progress) return GenerationListener.NONE;
        ProgressBar bar = new ProgressBar(err, "prefill");
        return new GenerationListener() {
            @Override
            public void onPrefill(int done, int total) {
                if (total > prefillChunk) bar.tokens(done, total);
            }
        };
    }

    @Override
    public void onPrefill(int done, int total) {
        if (bar == null || total <= prefillChunk) return;
        bar.tokens(done, total);
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
