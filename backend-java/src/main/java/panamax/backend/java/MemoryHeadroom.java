package panamax.backend.java;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether the machine has room for more resident memory, from Linux's {@code MemAvailable} (which counts the page
 * cache of mapped weights as reclaimable): a form derived from weights (repacked tiles) is made only when it leaves
 * a reserve of 1 GiB plus 5 % of the machine's memory, so repacking never pushes a machine that holds its model
 * into swapping or the OOM killer. Where {@code /proc/meminfo} cannot be read, everything fits.
 */
final class MemoryHeadroom {
    private static final Path MEMINFO = Path.of("/proc/meminfo");
    private static final long GIB = 1L << 30;

    private MemoryHeadroom() {
    }

    /** True when {@code bytes} more leave the reserve free. */
    static boolean fits(long bytes) {
        long[] info = read();
        if (info == null) return true;
        long available = info[0], total = info[1];
        return bytes <= available - GIB - total / 20;
    }

    /** {MemAvailable, MemTotal} in bytes, or null. */
    private static long[] read() {
        try {
            List<String> lines = Files.readAllLines(MEMINFO);
            long available = -1, total = -1;
            for (String line : lines) {
                if (line.startsWith("MemAvailable:")) available = kib(line);
                else if (line.startsWith("MemTotal:")) total = kib(line);
            }
            return available < 0 || total < 0 ? null : new long[] {available, total};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long kib(String line) {
        String[] parts = line.trim().split("\\s+");
        return Long.parseLong(parts[1]) * 1024;
    }
}
