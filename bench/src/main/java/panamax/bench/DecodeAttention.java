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
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * One layer's decode attention on the Java backend: one query row of 32 heads of 128 against a cache of 4 kv heads
 * ({@code scaledDotProductAttention(q [1, 32, 1, 128], K, V [1, 4, T, 128])}, causal), the shape of Llama-3-8B's and
 * Qwen3-30B-A3B's layers, with f32 or bf16 keys and values. With {@code from = dram} successive operations cycle
 * through copies of K and V adding up to {@link Workloads#ROTATION_BYTES}, so the cache comes from DRAM as a model's
 * layers read it (bytes per operation: {@code 2·4·T·128·(4 or 2)}); with {@code from = cache} they reuse one copy, which
 * times the kernels ({@code KeyScores}, {@code ValueAccumulation}) with their operands in the caches.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class DecodeAttention {
    static final int QUERY_HEADS = 32;
    static final int KV_HEADS = 4;
    static final int HEAD_DIM = 128;

    /** Cached tokens. */
    @Param({"512", "4096"})
    public int tokens;

    /** The cache's element type. */
    @Param({"f32", "bf16"})
    public String dtype;

    /** Where K and V come from: {@code dram} (copies cycled) or {@code cache} (one copy). */
    @Param({"dram", "cache"})
    public String from;

    private BenchSession session;
    private Ops ops;
    private Tensor q;
    private Tensor[] keys;
    private Tensor[] values;
    private int next;

    @Setup(Level.Trial)
    public void load() {
        session = new BenchSession();
        ops = session.backend().ops();
        Shape cache = Shape.of(1, KV_HEADS, tokens, HEAD_DIM);
        Tensor k = switch (dtype) {
            case "f32" -> session.randomF32(cache, Workloads.SEED);
            case "bf16" -> session.randomBf16(cache, 1.0, Workloads.SEED);
            default -> throw new IllegalArgumentException("dtype: expected f32 or bf16, found " + dtype);
        };
        DType type = k.dtype();
        int copies = switch (from) {
            case "dram" -> Workloads.copiesFor(2 * cache.size() * type.byteSize());
            case "cache" -> 1;
            default -> throw new IllegalArgumentException("from: expected dram or cache, found " + from);
        };
        keys = new Tensor[copies];
        values = new Tensor[copies];
        for (int i = 0; i < copies; i++) {
            keys[i] = i == 0 ? k : session.keep(ops.copy(k));
            values[i] = session.keep(ops.copy(k));
        }
        q = session.randomF32(Shape.of(1, QUERY_HEADS, 1, HEAD_DIM), Workloads.SEED + 1);
        try (Tensor y = attend(0)) {
            BenchSession.requireShape("scaledDotProductAttention(q, K, V)", y, Shape.of(1, QUERY_HEADS, 1, HEAD_DIM));
        }
    }

    @TearDown(Level.Trial)
    public void release() {
        session.close();
    }

    @Benchmark
    public void attention() {
        int i = next;
        next = next + 1 == keys.length ? 0 : next + 1;
        try (Tensor y = attend(i)) {
            session.backend().eval(y);
        }
    }

    private Tensor attend(int copy) {
        return ops.scaledDotProductAttention(q, keys[copy], values[copy], 1.0 / Math.sqrt(HEAD_DIM), AttentionMask.CAUSAL);
    }
}
