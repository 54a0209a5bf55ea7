package panamax.bench.jit;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much this JVM's JIT compilers have worked so far, to tell when a benchmark's warm-up has let
 * them finish: until C2 has compiled a kernel, Vector API code runs many times slower, and on a
 * machine of few cores the compiler threads also take cores from the timed work. Stateless; shared by
 * {@code panamax bench codecs}, {@code decode}, {@code serve} and {@code speculative}.
 *
 * <p>On Linux the measure is the compiler threads' CPU time, read from {@code /proc/self/task}: it
 * advances while a compilation runs. The JVM's own figure ({@link CompilationMXBean}) only moves when
 * a compilation ends, so a warm-up that waited for it to stand still let a long C2 compile through:
 * on the MoE preset one finished a second into the timed steps, after 0.5 s of "quiet", and the
 * steps before it ran at 60-95 ms against 44-52 ms after. Elsewhere that figure is the fallback.
 */
public final class JitActivity {
    private static final Path TASKS = Path.of("/proc/self/task");

    private JitActivity() {
    }

    /**
     * Sleeps until the JIT has done nothing for {@code quietMillis} (polled every 100 ms), or
     * {@code limitMillis} have passed; returns at once where JIT work is not reported.
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

    /** How long the compiler threads must have been idle for a warm-up to end ({@link #runUntilQuiet(Step)}). */
    public static final long QUIET_NANOS = 500_000_000L;
    /** How long such a warm-up runs at most, whatever the JIT does. */
    public static final long LIMIT_NANOS = 20_000_000_000L;

    /** A warm-up step: one pass of the work a benchmark is about to time. */
    @FunctionalInterface
    public interface Step<E extends Exception> {
        void run() throws E;
    }

    /**
     * Runs {@code step} again and again until the JIT has done nothing for {@code quietNanos} (at most
     * {@code limitNanos}); returns how many times it ran, 0 where JIT work is not reported. Unlike
     * {@link #awaitQuiet}, the work keeps running, so the JIT compiles what the timed passes will run
     * with the profile they will give it.
     */
    public static <E extends Exception> int runUntilQuiet(Step<E> step, long quietNanos, long limitNanos) throws E {
        int runs = 0;
        long compiled = millis();
        long start = System.nanoTime();
        long quietSince = start;
        while (compiled > 0 && System.nanoTime() - quietSince < quietNanos && System.nanoTime() - start < limitNanos) {
            step.run();
            runs++;
            long now = millis();
            if (now != compiled) {
                compiled = now;
                quietSince = System.nanoTime();
            }
        }
        return runs;
    }

    /** {@link #runUntilQuiet(Step, long, long)} with the benchmarks' wait: idle for {@link #QUIET_NANOS}, {@link #LIMIT_NANOS} at most. */
    public static <E extends Exception> int runUntilQuiet(Step<E> step) throws E {
        return runUntilQuiet(step, QUIET_NANOS, LIMIT_NANOS);
    }

    /**
     * Milliseconds of JIT work so far: the compiler threads' CPU time where {@code /proc} shows it
     * (at the clock tick's resolution, 10 ms), else the JVM's total compilation time; 0 where neither
     * is known. Only changes of the value mean anything.
     */
    public static long millis() {
        long cpu = compilerThreadsCpuMillis();
        if (cpu >= 0) return cpu + 1; // + 1: a JVM whose compilers have not run yet still reports
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /**
     * CPU milliseconds (user + system) of the threads named "C1/C2 CompilerThread…", or -1 without {@code /proc}
     * or without such threads (an interpreter-only JVM, another JVM's names). Reads every task's name each time
     * (a few dozen small files): thread ids are reused, so a name remembered from an earlier call could be wrong.
     */
    static long compilerThreadsCpuMillis() {
        if (!Files.isDirectory(TASKS)) return -1;
        long ticks = 0;
        boolean found = false;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                if (!Files.readString(task.resolve("comm")).contains("CompilerThre")) continue;
                ticks += cpuTicks(Files.readString(task.resolve("stat")));
                found = true;
            }
        } catch (IOException | RuntimeException e) {
            return -1; // a task that ended between the listing and the read, or an unexpected format: fall back
        }
        return found ? ticks * 10 : -1; // USER_HZ is 100 on Linux
    }

    /** utime + stime of a {@code /proc/.../stat} line: fields 14 and 15, counted after the name's closing parenthesis. */
    static long cpuTicks(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
