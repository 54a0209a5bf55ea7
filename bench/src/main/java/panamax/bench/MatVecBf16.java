package panamax.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * One decode step's linear layer on the Java backend: {@code matmul(x [1, 4096] f32, transpose(W))}
 * with W a bf16 [n, 4096] matrix stored [out, in] as in a Hugging Face Linear, passed as the
 * transposed view models use. Memory bound: bytes per operation = n·4096·2
 * ({@link Workloads#bf16MatrixBytes}). Successive operations cycle through copies of W adding up to
 * {@link Workloads#ROTATION_BYTES}, so the weights come from DRAM, not from the last-level cache.
 * The result, owned by the benchmark, is closed each time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class MatVecBf16 {
    /** Output rows: an attention projection (4096) and a Llama-3-8B MLP projection (14336). */
    @Param({"4096", "14336"})
    public int n;

    private BenchSession session;
    private Ops ops;
    private Tensor x;
    private Tensor[] weightsT;
    private int next;

    @Setup(Level.Trial)
    public void load() {
        session = new BenchSession();
        ops = session.backend().ops();
        Tensor weight = session.randomBf16(Shape.of(n, Workloads.HIDDEN), 0.05, Workloads.SEED);
        weightsT = new Tensor[Workloads.copiesFor(Workloads.bf16MatrixBytes(n))];
        for (int i = 0; i < weightsT.length; i++) {
            Tensor copy = i == 0 ? weight : session.keep(ops.copy(weight));
            weightsT[i] = session.keep(ops.transpose(copy, 1, 0));
        }
        x = session.randomF32(Shape.of(1, Workloads.HIDDEN), Workloads.SEED + 1);
        if (Workloads.storageBytes(weight) != Workloads.bf16MatrixBytes(n) || weight.dtype() != DType.BF16) {
            throw new IllegalStateException("weight: expected " + Workloads.bf16MatrixBytes(n) + " bf16 bytes, found "
                    + Workloads.storageBytes(weight) + " " + weight.dtype());
        }
        try (Tensor y = ops.matmul(x, weightsT[0])) {
            BenchSession.requireShape("matmul(x, transpose(W))", y, Shape.of(1, n));
        }
    }

    @TearDown(Level.Trial)
    public void release() {
        session.close();
    }

    @Benchmark
    public void matvec() {
        Tensor weightT = weightsT[next];
        next = next + 1 == weightsT.length ? 0 : next + 1;
        try (Tensor y = ops.matmul(x, weightT)) {
            session.backend().eval(y);
        }
    }
}
