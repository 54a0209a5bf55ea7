package panamax.kv.codecs.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/** How long this JVM's JIT compilers have worked so far, to tell when a warm-up has let them finish. Stateless. */
final class JitActivity {
    private JitActivity() {
    }

    /** Total JIT compilation milliseconds so far, or 0 where the JVM does not report it. */
    static long millis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }
}
