package panamax.bench.jit;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * How long this JVM's JIT compilers have worked so far, to tell when a benchmark's warm-up has let
 * them finish: until C2 has compiled a kernel, Vector API code runs many times slower, and on a
 * machine of few cores the compiler threads also take cores from the timed work. Stateless; shared
 * by {@code panamax bench codecs} and {@code panamax bench decode}.
 */
public final class JitActivity {
    private JitActivity() {
    }

    /**
     * Sleeps until the JIT has compiled nothing for {@code quietMillis} (polled every 100 ms), or
     * {@code limitMillis} have passed; returns at once where compile time is not reported.
     */
    public static void awaitQuiet(long quietMillis, long limitMillis) {
        long start = System.nanoTime();
        long last = millis();
        long quietSince = System.nanoTime();
        while (last > 0 && (System.nanoTime() - quietSince) / 1_000_000 < quietMillis
                && (System.nanoTime() - start) / 1_000_000 < limitMillis) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = millis();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
    }

    /** Total JIT compilation milliseconds so far, or 0 where the JVM does not report it. */
    public static long millis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }
}
