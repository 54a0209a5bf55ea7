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
