package panamax.engine.generate;

import java.util.List;

/**
 * Finds stop strings in a stream of text deltas and keeps them out of the output, even when a stop
 * string arrives split across tokens: text that could be the start of a stop string is held back
 * until the next delta decides. Not thread-safe: one instance per row.
 */
public final class StopStrings {
    private final List<String> stops;
    private final StringBuilder pending = new StringBuilder();
    private boolean stopped;

    public StopStrings(List<String> stops) {
        for (String s : stops) {
            if (s == null || s.isEmpty()) throw new IllegalArgumentException("stop strings must not be empty, found " + stops);
        }
        this.stops = List.copyOf(stops);
    }

    /** Whether a stop string has been seen; later deltas are ignored. */
    public boolean stopped() {
        return stopped;
    }

    /**
     * Takes the next delta and returns what may be emitted now: all text before the first stop
     * string when one completes (then {@link #stopped()} turns true), else all text that cannot be
     * the start of a stop string.
     */
    public String accept(String delta) {
        if (stopped) return "";
        pending.append(delta);
        int first = -1;
        for (String stop : stops) {
            int at = pending.indexOf(stop);
            if (at >= 0 && (first < 0 || at < first)) first = at;
        }
        if (first >= 0) {
            stopped = true;
            String out = pending.substring(0, first);
            pending.setLength(0);
            return out;
        }
        int hold = 0;
        for (String stop : stops) hold = Math.max(hold, overlap(pending, stop));
        String out = pending.substring(0, pending.length() - hold);
        pending.delete(0, pending.length() - hold);
        return out;
    }

    /** The held-back text, at the end of generation when no stop string completed. */
    public String finish() {
        if (stopped) return "";
        String out = pending.toString();
        pending.setLength(0);
        return out;
    }

    /** Length of the longest suffix of {@code text} that is a proper prefix of {@code stop}. */
    private static int overlap(CharSequence text, String stop) {
        for (int n = Math.min(text.length(), stop.length() - 1); n > 0; n--) {
            boolean match = true;
            for (int i = 0; i < n && match; i++) match = text.charAt(text.length() - n + i) == stop.charAt(i);
            if (match) return n;
        }
        return 0;
    }
}
