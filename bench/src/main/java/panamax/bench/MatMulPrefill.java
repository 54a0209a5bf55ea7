package panamax.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A prefill step's linear layer on the Java backend: {@code matmul(X [512, 4096] f32, transpose(W))}
 * with W a bf16 [4096, 4096] matrix stored [out, in]. Compute bound: FLOPs per operation =
 * 2·512·4096·4096 ({@link Workloads#prefillFlops}); the result is closed each time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class MatMulPrefill {
    private BenchSession session;
    private Ops ops;
    private Tensor activations;
    private Tensor weightT;

    @Setup(Level.Trial)
    public void load() {
        session = new BenchSession();
        ops = session.backend().ops();
        Tensor weight = session.randomBf16(Shape.of(Workloads.PREFILL_OUT, Workloads.HIDDEN), 0.05, Workloads.SEED);
        weightT = session.keep(ops.transpose(weight, 1, 0));
        activations = session.randomF32(Shape.of(Workloads.PREFILL_TOKENS, Workloads.HIDDEN), Workloads.SEED + 2);
        try (Tensor y = ops.matmul(activations, weightT)) {
            BenchSession.requireShape("matmul(X, transpose(W))", y, Shape.of(Workloads.PREFILL_TOKENS, Workloads.PREFILL_OUT));
        }
    }

    @TearDown(Level.Trial)
    public void release() {
        session.close();
    }

    @Benchmark
    public void prefill() {
        try (Tensor y = ops.matmul(activations, weightT)) {
            session.backend().eval(y);
        }
    }
}
