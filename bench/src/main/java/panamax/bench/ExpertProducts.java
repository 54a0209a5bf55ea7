package panamax.bench;

import java.util.SplittableRandom;
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
 * One sparse layer's expert products at batch-1 decode in Qwen3-30B-A3B's shape (128 experts of
 * width 768, hidden 2048, top 8), issued as the model issues them ({@code routed}: 8 experts drawn
 * at random, gate, up and down each one product, 24 dispatches) against the same bytes in three
 * products of 8× the rows ({@code grouped}: what one dispatch per projection would stream). The gap
 * is the most that grouping a layer's expert products into one dispatch could gain. Both read
 * weights from DRAM: the routed ones from 128 experts, the grouped ones cycled through copies
 * adding up to at least {@link Workloads#ROTATION_BYTES}. Weights bf16 ({@code ops.matmul} against
 * the transposed view) or MLX affine 8-bit in groups of 64 ({@code quantizedMatmul}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class ExpertProducts {
    static final int EXPERTS = 128, TOP_K = 8, WIDTH = 768, HIDDEN = 2048;

    /** {@code bf16} or {@code q8}. */
    @Param({"bf16", "q8"})
    public String weights;

    private BenchSession session;
    private Ops ops;
    private Tensor x;       // (1, hidden)
    private Tensor h;       // (1, width)
    private Projection[] gate, up, down;             // per expert: (width, hidden), (width, hidden), (hidden, width)
    private Projection[] groupedGate, groupedUp, groupedDown; // copies of (k·width, hidden), (k·width, hidden), (k·hidden, width)
    private final SplittableRandom routing = new SplittableRandom(Workloads.SEED);
    private int next;

    /** One weight matrix as the model holds it: bf16 [out, in], or quantized. */
    private record Projection(Tensor dense, QuantizedMatrix quantized) {
        Tensor apply(Ops ops, Tensor x) {
            if (quantized != null) return ops.quantizedMatmul(x, quantized, true);
            try (Tensor t = ops.transpose(dense, 1, 0)) {
                return ops.matmul(x, t);
            }
        }
    }

    @Setup(Level.Trial)
    public void load() {
        if (!weights.equals("bf16") && !weights.equals("q8")) throw new IllegalArgumentException("weights: expected bf16 or q8, found " + weights);
        session = new BenchSession();
        ops = session.backend().ops();
        gate = new Projection[EXPERTS];
        up = new Projection[EXPERTS];
        down = new Projection[EXPERTS];
        Projection g = projection(WIDTH, HIDDEN, 1), d = projection(HIDDEN, WIDTH, 2);
        for (int e = 0; e < EXPERTS; e++) {
            gate[e] = e == 0 ? g : copy(g);
            up[e] = copy(g);
            down[e] = e == 0 ? d : copy(d);
        }
        Projection in = projection(TOP_K * WIDTH, HIDDEN, 3), out = projection(TOP_K * HIDDEN, WIDTH, 4);
        int copies = Workloads.copiesFor(2 * bytes(in) + bytes(out));
        groupedGate = new Projection[copies];
        groupedUp = new Projection[copies];
        groupedDown = new Projection[copies];
        for (int i = 0; i < copies; i++) {
            groupedGate[i] = i == 0 ? in : copy(in);
            groupedUp[i] = copy(in);
            groupedDown[i] = i == 0 ? out : copy(out);
        }
        x = session.randomF32(Shape.of(1, HIDDEN), Workloads.SEED + 5);
        h = session.randomF32(Shape.of(1, WIDTH), Workloads.SEED + 6);
        try (Tensor y = groupedDown[0].apply(ops, h)) {
            BenchSession.requireShape("grouped down products", y, Shape.of(1, TOP_K * HIDDEN));
        }
    }

    private Projection projection(int rows, int cols, long seed) {
        Tensor w = session.randomBf16(Shape.of(rows, cols), 0.05, Workloads.SEED + seed);
        if (weights.equals("bf16")) return new Projection(w, null);
        QuantizedMatrix q = ops.quantize(w, Workloads.GROUP_SIZE, 8);
        session.keep(q);
        return new Projection(null, q);
    }

    private Projection copy(Projection p) {
        if (p.dense() != null) return new Projection(session.keep(ops.copy(p.dense())), null);
        QuantizedMatrix q = p.quantized();
        return new Projection(null, new QuantizedMatrix(session.keep(ops.copy(q.packed())), session.keep(ops.copy(q.scales())),
                session.keep(ops.copy(q.biases())), q.groupSize(), q.bits()));
    }

    private static long bytes(Projection p) {
        return p.dense() != null ? p.dense().size() * 2 : Workloads.storageBytes(p.quantized());
    }

    @TearDown(Level.Trial)
    public void release() {
        session.close();
    }

    /** 8 distinct experts at random, gate, up and down each one product: 24 dispatches. */
    @Benchmark
    public void routed() {
        int[] chosen = routing.ints(0, EXPERTS).distinct().limit(TOP_K).toArray();
        for (int e : chosen) {
            try (Tensor g = gate[e].apply(ops, x); Tensor u = up[e].apply(ops, x); Tensor d = down[e].apply(ops, h)) {
                session.backend().eval(g, u, d);
            }
        }
    }

    /** The same bytes in three products of 8× the rows: 3 dispatches. */
    @Benchmark
    public void grouped() {
        int i = next;
        next = next + 1 == groupedGate.length ? 0 : next + 1;
        try (Tensor g = groupedGate[i].apply(ops, x); Tensor u = groupedUp[i].apply(ops, x); Tensor d = groupedDown[i].apply(ops, h)) {
            session.backend().eval(g, u, d);
        }
    }
}
