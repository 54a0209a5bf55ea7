package panamax.bench.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class JitActivityTest {
    @Test
    void cpuTicksAreCountedAfterTheThreadNameWhateverItHoldsSpacesOrParentheses() {
        // a compiler thread's /proc/<pid>/task/<tid>/stat: the name has a space, and a name may hold ')'
        String stat = "4242 (C2 CompilerThre) S 1 4240 4240 0 -1 4194368 9027 0 0 0 1234 56 0 0 20 0 30 0 3157 0 0";
        assertEquals(1290, JitActivity.cpuTicks(stat));
        assertEquals(7, JitActivity.cpuTicks("7 (a) b)) R 1 2 3 4 5 6 7 8 9 10 3 4 0 0"));
    }

    @Test
    void warmUpRunsTheStepUntilTheLimitWhenTheJitNeverGoesQuietAndNotAtAllWithNoWait() {
        int[] calls = new int[1];
        long start = System.nanoTime();
        int runs = JitActivity.runUntilQuiet(() -> calls[0]++, Long.MAX_VALUE, 50_000_000L);
        long took = System.nanoTime() - start;
        assertEquals(calls[0], runs);
        if (JitActivity.millis() > 0) { // where JIT work is reported, the limit ends it
            assertTrue(runs > 0 && took >= 50_000_000L && took < 5_000_000_000L, runs + " runs in " + took + " ns");
        }
        assertEquals(0, JitActivity.runUntilQuiet(() -> calls[0]++, 0, Long.MAX_VALUE), "quiet from the start");
    }

    @Test
    void aFailingStepEndsTheWarmUpWithItsException() {
        JitActivity.Step<IllegalStateException> failing = () -> {
            throw new IllegalStateException("step failed");
        };
        if (JitActivity.millis() == 0) { // no JIT figure here: the warm-up runs nothing
            assertEquals(0, JitActivity.runUntilQuiet(failing, Long.MAX_VALUE, 1_000_000_000L));
            return;
        }
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> JitActivity.runUntilQuiet(failing, Long.MAX_VALUE, 1_000_000_000L));
        assertEquals("step failed", e.getMessage());
    }

    @Test
    void theCompilerThreadsAreFoundWhereProcShowsThem() {
        if (!Files.isDirectory(Path.of("/proc/self/task"))) {
            assertTrue(JitActivity.millis() >= 0);
            return;
        }
        // a JVM with a JIT keeps at least one C1 and one C2 compiler thread
        assertTrue(JitActivity.compilerThreadsCpuMillis() >= 0, "no C1/C2 CompilerThread found under /proc/self/task");
        assertTrue(JitActivity.millis() > 0);
    }
}
