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
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * The same decode-step layer as {@link MatVecBf16} with 4-bit MLX-affine weights:
 * {@code quantizedMatmul(x [1, 4096], quantize(W, 64, 4), transpose = true)}, W the same bf16
 * [n, 4096] matrix. Bytes per operation = packed codes + bf16 scales + biases
 * ({@link Workloads#quantizedMatrixBytes}, checked against the tensors in setup). The weights are
 * quantized once per trial, then copied so that successive operations cycle through
 * {@link Workloads#ROTATION_BYTES} of quantized weights (read from DRAM, not from the last-level
 * cache, as in {@link MatVecBf16}); the result is closed each time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class MatVecQ4 {
    @Param({"4096", "14336"})
    public int n;

    private BenchSession session;
    private Ops ops;
    private Tensor x;
    private QuantizedMatrix[] weightsQ;
    private int next;

    @Setup(Level.Trial)
    public void load() {
        session = new BenchSession();
        ops = session.backend().ops();
        Tensor weight = session.randomBf16(Shape.of(n, Workloads.HIDDEN), 0.05, Workloads.SEED);
        QuantizedMatrix weightQ = session.keep(ops.quantize(weight, Workloads.GROUP_SIZE, Workloads.BITS));
        long bytes = Workloads.storageBytes(weightQ);
        if (bytes != Workloads.quantizedMatrixBytes(n)) {
            throw new IllegalStateException("quantized weight: expected " + Workloads.quantizedMatrixBytes(n)
                    + " bytes (packed + bf16 scales + biases), found " + bytes);
        }
        weightsQ = session.copies(weightQ, Workloads.copiesFor(bytes));
        x = session.randomF32(Shape.of(1, Workloads.HIDDEN), Workloads.SEED + 1);
        session.repackEach(x, weightsQ, Shape.of(1, n));
    }

    @TearDown(Level.Trial)
    public void release() {
        session.close();
    }

    @Benchmark
    public void quantizedMatvec() {
        QuantizedMatrix weightQ = weightsQ[next];
        next = next + 1 == weightsQ.length ? 0 : next + 1;
        try (Tensor y = ops.quantizedMatmul(x, weightQ, true)) {
            session.backend().eval(y);
        }
    }
}
