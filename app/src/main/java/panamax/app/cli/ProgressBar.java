package panamax.app.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * One progress bar redrawn in place on the error stream ({@code \r}, no newline until done), at
 * most every 100 ms, so that a load of thousands of tensors does not flood a terminal. Only made
 * where the caller decided a bar is wanted (see {@link ProgressMode}); never writes to standard
 * output. Not thread-safe: one loading or prefilling thread drives it.
 */
final class ProgressBar {
    private static final int WIDTH = 30;
    private static final long REDRAW_NANOS = 100_000_000L;

    private final PrintWriter err;
    private final String label;
    private final LongSupplier nanoTime;
    /** When the first report came (loading or prefill began), not when the bar was made. */
    private long start = Long.MIN_VALUE;
    private long lastDraw = Long.MIN_VALUE;
    private int lastLength;
    private boolean finished;

    /** A bar titled {@code label} on {@code err} (borrowed). */
    ProgressBar(PrintWriter err, String label) {
        this(err, label, System::nanoTime);
    }

    /** As {@link #ProgressBar(PrintWriter, String)}, reading time in nanoseconds from {@code nanoTime} (tests supply their own). */
    ProgressBar(PrintWriter err, String label, LongSupplier nanoTime) {
        this.err = err;
        this.label = label;
        this.nanoTime = nanoTime;
    }

    /** Loaded bytes: {@code done} of {@code total}, the file or tensor just finished as detail. */
    void bytes(long done, long total, String detail) {
        double seconds = seconds();
        boolean large = total >= 1_000_000_000L; // GB for checkpoints, MB for small models (no "0.00/0.00 GB")
        double unit = large ? 1e9 : 1e6;
        update(done, total, String.format(Locale.ROOT, "%.2f/%.2f %s, %.2f %s/s  %s", done / unit, total / unit, large ? "GB" : "MB",
                seconds > 0 ? done / unit / seconds : 0, large ? "GB" : "MB", detail));
    }

    /** Prefilled tokens: {@code done} of {@code total}. */
    void tokens(long done, long total) {
        double seconds = seconds();
        update(done, total, String.format(Locale.ROOT, "%d/%d tokens, %.1f tok/s", done, total, seconds > 0 ? done / seconds : 0));
    }

    private void update(long done, long total, String detail) {
        if (finished) return;
        long now = nanoTime.getAsLong();
        boolean last = done >= total;
        if (!last && lastDraw != Long.MIN_VALUE && now - lastDraw < REDRAW_NANOS) return;
        lastDraw = now;
        int filled = total <= 0 ? WIDTH : (int) Math.min(WIDTH, WIDTH * (double) done / total);
        String line = String.format(Locale.ROOT, "%s [%s%s] %3d%% %s", label, "#".repeat(filled), " ".repeat(WIDTH - filled),
                total <= 0 ? 100 : (int) Math.min(100, 100 * (double) done / total), detail);
        // pad over the previous, longer line (a file name can shrink)
        err.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        lastLength = line.length();
        if (last) {
            err.println();
            finished = true;
        }
        err.flush();
    }

    private double seconds() {
        long now = nanoTime.getAsLong();
        if (start == Long.MIN_VALUE) start = now;
        return (now - start) / 1e9;
    }
}
