package panamax.bench.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's page faults so far, from Linux's {@code /proc/self/stat}: to tell whether timed
 * decode steps paid for first touches of memory-mapped weights (a 4 KiB minor fault per page of a
 * mapped file read for the first time) rather than for streaming them. The counts are the whole
 * process's (the JVM's heap too), so they bound the weights' faults from above. Stateless.
 *
 * @param minor faults served without I/O (the page was in memory, e.g. in the page cache)
 * @param major faults that read from disk
 */
record PageFaults(long minor, long major) {
    private static final Path STAT = Path.of("/proc/self/stat");
    /** Where the counts cannot be read (not Linux). */
    static final PageFaults UNKNOWN = new PageFaults(-1, -1);

    /** The counts now, or {@link #UNKNOWN}. */
    static PageFaults now() {
        try {
            return parse(Files.readString(STAT));
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /**
     * The counts in a {@code /proc/<pid>/stat} line: {@code minflt} and {@code majflt}, the 10th
     * and 12th fields, counted after the parenthesized command name (which may hold spaces).
     *
     * @throws IllegalArgumentException when the line has no such fields
     */
    static PageFaults parse(String stat) {
        int close = stat.lastIndexOf(')');
        String[] f = stat.substring(close + 1).trim().split("\\s+");
        // f[0] is field 3 (state): field n is f[n - 3]
        if (close < 0 || f.length < 10) throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
        return new PageFaults(Long.parseLong(f[7]), Long.parseLong(f[9]));
    }

    boolean known() {
        return minor >= 0;
    }

    /** The faults since {@code earlier}, or {@link #UNKNOWN} when either is. */
    PageFaults since(PageFaults earlier) {
        return known() && earlier.known() ? new PageFaults(minor - earlier.minor, major - earlier.major) : UNKNOWN;
    }
}
