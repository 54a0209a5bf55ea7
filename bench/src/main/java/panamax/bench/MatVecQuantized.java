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
 * The decode-step products of a 1B Llama (hidden 2048, intermediate 8192) over MLX-affine weights (3, 4 or 8 bits)
 * in groups of 64: {@code quantizedMatmul(x [rows, k], quantize(W [n, k], 64, bits), transpose = true)}
 * for the up/gate shape (k 2048 → n 8192) and the down shape (8192 → 2048), one x row (batch-1 decode)
 * and eight (batch 8). Bytes per operation = packed codes + bf16 scales + biases; the weights are
 * copied so that successive operations cycle through {@link Workloads#ROTATION_BYTES} (read from
 * DRAM, as a model's layers are).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class MatVecQuantized {
    /** Bits per code: 4 or 8, or 3 (widened to 4-bit tiles; 2 runs the same kernels with 16 codes per word). */
    @Param({"3", "4", "8"})
    public int bits;
    /** {@code k:n}: the reduction length and the number of weight rows. */
    @Param({"2048:8192", "8192:2048"})
    public String shape;
    /** x rows: 1 (batch-1 decode) or 8 (batch 8). */
    @Param({"1", "8"})
    public int rows;

    private BenchSession session;
    private Ops ops;
    private Tensor x;
    private QuantizedMatrix[] weights;
    private int next;

    static int k(String shape) {
        return Integer.parseInt(shape.substring(0, shape.indexOf(':')));
    }

    static int n(String shape) {
        return Integer.parseInt(shape.substring(shape.indexOf(':') + 1));
    }

    /** Bytes of one quantized [n, k] matrix in groups of 64: packed codes + bf16 scales + biases. */
    static long bytes(int k, int n, int bits) {
        return (long) n * k * bits / 8 + 2L * n * (k / Workloads.GROUP_SIZE) * 2;
    }

    @Setup(Level.Trial)
    public void load() {
        int k = k(shape), n = n(shape);
        session = new BenchSession();
        ops = session.backend().ops();
        Tensor weight = session.randomBf16(Shape.of(n, k), 0.05, Workloads.SEED);
        QuantizedMatrix first = ops.quantize(weight, Workloads.GROUP_SIZE, bits);
        session.keep(first.packed());
        session.keep(first.scales());
        session.keep(first.biases());
        long stored = Workloads.storageBytes(first);
        if (stored != bytes(k, n, bits)) {
            throw new IllegalStateException("quantized weight: expected " + bytes(k, n, bits) + " bytes, found " + stored);
        }
        weights = session.copies(first, Workloads.copiesFor(stored));
        x = session.randomF32(Shape.of(rows, k), Workloads.SEED + 1);
        session.repackEach(x, weights, Shape.of(rows, n));
    }

    @TearDown(Level.Trial)
    public void release() {
        session.close();
    }

    @Benchmark
    public void quantizedMatvec() {
        QuantizedMatrix w = weights[next];
        next = next + 1 == weights.length ? 0 : next + 1;
        try (Tensor y = ops.quantizedMatmul(x, w, true)) {
            session.backend().eval(y);
        }
    }
}
