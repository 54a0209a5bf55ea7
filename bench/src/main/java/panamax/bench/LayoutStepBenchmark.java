package panamax.bench;

import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * One decode step of one attention layer — append one token per row, attend one query per row —
 * at a given context, for each layout. Geometry of a Llama-3-8B layer: 8 kv heads, 32 query heads,
 * head dim 128, bf16 activations. {@code full} stores identity bf16; {@code rotating} is
 * {@code --max-kv-size 4096} (window 4096, keep 4); {@code delayed} is {@code --kv-bits 4
 * --quantized-kv-start context/2}, so at the measured context every row is affine 4-bit. The context
 * is held constant by trimming the appended token after each step where the layout can trim.
 * Plugins are found through ServiceLoader only. Run with {@code ./dev bench LayoutStepBenchmark}.
 */
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class LayoutStepBenchmark {
    private static final int KV_HEADS = 8;
    private static final int Q_HEADS = 32;
    private static final int HEAD_DIM = 128;
    private static final int CHUNK = 512;

    @Param({"full", "rotating", "delayed"})
    public String layout;

    @Param({"1024", "8192", "32768"})
    public int context;

    @Param({"1", "8"})
    public int batch;

    private Backend backend;
    private KvLayout cache;
    private Tensor keys;     // [batch, KV_HEADS, 1, HEAD_DIM]
    private Tensor values;   // [batch, KV_HEADS, 1, HEAD_DIM]
    private Tensor queries;  // [batch, Q_HEADS, 1, HEAD_DIM]

    @Setup
    public void setUp() {
        backend = find(BackendProvider.class, "java").create(BackendOptions.defaults());
        String codecId = layout.equals("delayed") ? "affine" : "identity";
        Map<String, String> codecParams = layout.equals("delayed") ? Map.of("bits", "4") : Map.of("dtype", "bf16");
        Map<String, String> layoutParams = switch (layout) {
            case "rotating" -> Map.of("window", "4096", "keep", "4");
            case "delayed" -> Map.of("start", Integer.toString(context / 2));
            default -> Map.of();
        };
        KvCodecProvider codecs = find(KvCodecProvider.class, codecId);
        KvCodecProvider identity = find(KvCodecProvider.class, "identity");
        KvLayoutProvider layouts = find(KvLayoutProvider.class, layout);
        CodecContext cc = new CodecContext(backend, 0, KV_HEADS, HEAD_DIM, DType.BF16, 1);
        cache = layouts.create(PluginParams.of(layoutParams).resolve(layout, layouts.capabilities().params()),
                new LayoutContext(backend, 0, batch,
                        codecs.create(PluginParams.of(codecParams).resolve(codecId, codecs.capabilities().params()), cc),
                        identity.create(PluginParams.of(Map.of("dtype", "bf16")), cc), KV_HEADS));
        Random random = new Random(42);
        for (int done = 0; done < context; done += CHUNK) {
            int length = Math.min(CHUNK, context - done);
            try (Tensor k = random(random, Shape.of(batch, KV_HEADS, length, HEAD_DIM));
                 Tensor v = random(random, Shape.of(batch, KV_HEADS, length, HEAD_DIM))) {
                cache.append(k, v);
            }
        }
        keys = random(random, Shape.of(batch, KV_HEADS, 1, HEAD_DIM));
        values = random(random, Shape.of(batch, KV_HEADS, 1, HEAD_DIM));
        queries = random(random, Shape.of(batch, Q_HEADS, 1, HEAD_DIM));
    }

    @Benchmark
    public float[] appendAndAttend() {
        cache.append(keys, values);
        float[] out;
        try (Tensor attended = cache.attend(queries, 1 / Math.sqrt(HEAD_DIM))) {
            out = backend.toFloats(attended);
        }
        if (cache.isTrimmable()) cache.trim(1);
        return out;
    }

    /** Attention alone over the same cache, to separate the append's cost from the step's. */
    @Benchmark
    public float[] attendOnly() {
        try (Tensor attended = cache.attend(queries, 1 / Math.sqrt(HEAD_DIM))) {
            return backend.toFloats(attended);
        }
    }

    @TearDown
    public void tearDown() {
        keys.close();
        values.close();
        queries.close();
        cache.close();
        backend.close();
    }

    private Tensor random(Random random, Shape shape) {
        float[] data = new float[(int) shape.size()];
        for (int i = 0; i < data.length; i++) data[i] = (float) random.nextGaussian();
        return backend.fromFloats(data, shape, DType.BF16);
    }

    private static <S> S find(Class<S> service, String id) {
        for (S s : ServiceLoader.load(service)) {
            String sid = switch (s) {
                case BackendProvider b -> b.id();
                case KvCodecProvider c -> c.id();
                case KvLayoutProvider l -> l.id();
                default -> "";
            };
            if (sid.equals(id)) return s;
        }
        throw new IllegalStateException("no " + service.getSimpleName() + " " + id);
    }

}
