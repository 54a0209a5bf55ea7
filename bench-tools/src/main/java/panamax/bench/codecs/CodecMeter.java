package panamax.bench.codecs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import panamax.bench.jit.JitActivity;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Runs the measurements of {@link CodecBench} on one backend. Inputs are seeded random unit
 * vectors in bf16, identical for every codec. Times are medians (and bests) of {@code --reps}
 * repetitions after a warm-up. Host read-back ({@code toFloats}) is used only to score quality, outside any timing.
 * Not thread-safe.
 */
final class CodecMeter {
    static final int KV_HEADS = 8;
    static final int QUERY_HEADS = 32;
    private static final int QUALITY_TOKENS = 512;
    private static final int ENCODE_CHUNK = 2048;

    private final Backend backend;
    /**
     * Untimed attention calls at the timed length before timing, and the fewest timed: with one
     * untimed call and seven timed ones, kernels whose loops C2 compiled again at
     * the long length ran their first timed calls in older code: affine 4-bit read 2.5–5.0 ms (best)
     * where 25 timed calls read 1.6. Thirty timed calls: a 2 ms step on this shared machine is often
     * descheduled, and the best of fewer calls depended on luck.
     */
    static final int ATTENTION_WARMUP = 5;
    /** Encode + decode calls at the timed size per warm-up round (at least two rounds run). */
    static final int WARMUP_CALLS = 50;
    /**
     * Default untimed milliseconds of each timed quantity right before it is timed ({@link #warmUpFor}):
     * 400 ms left TurboQuant 4/4's decode at 4.2–4.7 GB/s (median), 1000 ms at 6.0–6.3, as 200 timed calls read.
     */
    static final long WARMUP_MILLIS = 1000;
    private final long warmupMillis;
    /**
     * Timed attention calls of each cache (alternating): 100. With 30, a median could land in the
     * first timed calls' slow phase (1.5 ms where the same step settled at 0.8 ms a dozen calls later, head dim 64).
     */
    static final int ATTENTION_REPS = 100;
    /**
     * Untimed alternating attention calls at the timed length before the timed ones (besides {@link #WARMUP_MILLIS}).
     * Per-head kernels run 8 times per call and reach C2 after some 5 000 invocations: in a harness at head dim 64,
     * TurboQuant 3/3's step went 2.04 → 1.02 → 0.88 → 0.81 ms over calls 0–1 000 (medians of 100) and then stayed,
     * while identity's settled at 0.83 by call 500. A second of warm-up (about 600 pairs) timed the codec at
     * 0.95 of identity; from call 1 000 on it read 1.01–1.08. Decode steps of a served model pass this point
     * within a few dozen tokens, so the bench times the settled kernels.
     */
    static final int ATTENTION_WARMUP_CALLS = 2000;
    private final int attentionTokens;
    private final int encodeTokens;
    private final long copyElements; // bf16 elements of the bandwidth copy
    private final int reps;
    private final Map<String, float[]> data = new HashMap<>();

    CodecMeter(Backend backend, int attentionTokens, int encodeTokens, int copyMib, int reps, long warmupMillis) {
        this.warmupMillis = warmupMillis;
        this.backend = backend;
        this.reps = reps;
        this.copyElements = (long) copyMib << 19;
        this.attentionTokens = attentionTokens;
        this.encodeTokens = encodeTokens;
    }

    /**
     * Bytes per second of a large bf16 copy into an already allocated tensor ({@code Ops.writeSlice}),
     * in GB/s of source bytes. The destination is allocated once so the figure is the memory copy
     * itself, not page faults of a fresh allocation.
     */
    double copyGbps() {
        var ops = backend.ops();
        try (Tensor big = ops.full(Shape.of((int) copyElements), 0.5, DType.BF16);
             Tensor target = ops.zeros(Shape.of((int) copyElements), DType.BF16)) {
            double seconds = seconds(Math.max(5, reps), 1, () -> {
                ops.writeSlice(target, big, 0);
                backend.eval(target);
                return List.of();
            })[0];
            return copyElements * 2 / seconds / 1e9;
        }
    }

    /**
     * One untimed pass of a case (encode and decode at the timed size {@value #WARMUP_CALLS} times, twice with no timed
     * warm-up ({@code --warmup-ms 0}, the tests' quick runs), attention over 512 tokens).
     * Run before any timing, at least twice (over every case when they share a JVM), so that each kernel has met every code width
     * before C2 compiles it and the compiles have landed: a kernel compiled for one width traps back
     * to slow code when the next width arrives, and Vector API code runs unintrinsified (boxed, about
     * 100× slower) until C2 has compiled it.
     */
    void warmUp(BenchCase c) {
        int d = c.headDim();
        var context = new CodecContext(backend, 0, KV_HEADS, d, DType.BF16, 0);
        try (KvCodec codec = c.provider().create(c.params(), context);
             Tensor k = unitVectors("warm-up keys", d, Math.max(512, encodeTokens));
             Tensor v = unitVectors("warm-up values", d, 512);
             Tensor q = backend.fromFloats(hostUnitVectors("warm-up query", d, QUERY_HEADS / KV_HEADS), Shape.of(1, QUERY_HEADS, 1, d),
                     DType.BF16)) {
            // encode and decode WARMUP_CALLS times per round: a kernel's per-head driver is called 8 times a
            // call, and C2 compiles a method (rather than only its hot loop, on stack) after ~600 invocations,
            // so TurboQuant 4/4 encoded at 1.6 GB/s after 50 calls and at 5.4 after 100
            for (int rep = 0, calls = warmupMillis == 0 ? 2 : WARMUP_CALLS; rep < calls; rep++) {
                List<Tensor> planes = codec.encode(KvRole.KEY, k);
                try (Tensor decoded = codec.decode(KvRole.KEY, planes)) {
                    backend.eval(decoded);
                } finally {
                    planes.forEach(Tensor::close);
                }
            }
            List<Tensor> all = codec.encode(KvRole.KEY, k);
            List<Tensor> keys = new ArrayList<>();
            List<Tensor> values = codec.encode(KvRole.VALUE, v);
            try {
                for (Tensor plane : all) keys.add(backend.ops().slice(plane, 2, 0, 512));
                try (Tensor decoded = codec.decode(KvRole.KEY, all);
                     Tensor out = codec.attend(q, keys, values, 1 / Math.sqrt(d), AttentionMask.CAUSAL)) {
                    backend.eval(decoded, out);
                }
            } finally {
                all.forEach(Tensor::close);
                keys.forEach(Tensor::close);
                values.forEach(Tensor::close);
            }
        }
    }

    /**
     * Measures case {@code c}. With an {@code identity} case (every codec but identity itself), each
     * timed attention call of the codec alternates with one over the identity cache of the same
     * tokens, and {@code attention_vs_identity} divides the two medians: on this shared machine the
     * load changes within seconds, and codecs timed at other moments than identity were compared under
     * other loads (medians 1.6–3.4 ms for the same identity step within one day).
     */
    Measurement measure(BenchCase c, double copyGbps, BenchCase identity, boolean ownJvm) {
        int d = c.headDim();
        CodecShape shape = c.provider().shape(c.params(), d, DType.BF16);
        var context = new CodecContext(backend, 0, KV_HEADS, d, DType.BF16, 0);
        try (KvCodec codec = c.provider().create(c.params(), context)) {
            double[] quality = quality(codec, d);
            double bytes = (double) KV_HEADS * encodeTokens * d * 2;
            Measurement.Timing encode;
            Measurement.Timing decode;
            try (Tensor x = unitVectors("throughput", d, encodeTokens)) {
                encode = Measurement.Timing.gbps(bytes, seconds(reps, 1, () -> codec.encode(KvRole.KEY, x)));
                List<Tensor> planes = codec.encode(KvRole.KEY, x);
                try {
                    decode = Measurement.Timing.gbps(bytes, seconds(reps, 1, () -> List.of(codec.decode(KvRole.KEY, planes))));
                } finally {
                    planes.forEach(Tensor::close);
                }
            }
            Measurement.Timing[] attention = attentionMs(codec, identity, d);
            return new Measurement(c, shape.bitsPerElement(), shape.bytesPerTokenPerHead(), quality[0], quality[1],
                    quality[2], encode, decode, attention[0], attention[1].median() / attention[0].median(), attentionTokens, copyGbps, ownJvm);
        }
    }

    /** {mse, inner-product distortion, inner-product bias} of key round trips on random unit vectors. */
    private double[] quality(KvCodec codec, int d) {
        float[] y = hostUnitVectors("probe", d, QUALITY_TOKENS);
        try (Tensor x = unitVectors("quality", d, QUALITY_TOKENS)) {
            List<Tensor> planes = codec.encode(KvRole.KEY, x);
            float[] xs;
            float[] xh;
            try (Tensor decoded = codec.decode(KvRole.KEY, planes)) {
                xs = backend.toFloats(x);
                xh = backend.toFloats(decoded);
            } finally {
                planes.forEach(Tensor::close);
            }
            double mse = 0;
            double ip = 0;
            double bias = 0;
            int vectors = xs.length / d;
            for (int v = 0; v < vectors; v++) {
                double err = 0, norm = 0, yx = 0, yxh = 0, xxh = 0;
                for (int i = v * d; i < (v + 1) * d; i++) {
                    double e = xs[i] - xh[i];
                    err += e * e;
                    norm += (double) xs[i] * xs[i];
                    yx += (double) y[i] * xs[i];
                    yxh += (double) y[i] * xh[i];
                    xxh += (double) xs[i] * xh[i];
                }
                mse += err / norm;
                ip += (yx - yxh) * (yx - yxh);
                bias += xxh / norm - 1;
            }
            return new double[] {mse / vectors, ip / vectors, bias / vectors};
        }
    }

    /**
     * Milliseconds of one decode step (median, best): 1 query token of 32 heads over the encoded
     * cache; [0] the codec's, [1] identity's, timed call for call in alternation over the same tokens
     * (the codec's own timing twice when {@code identity} is null).
     */
    private Measurement.Timing[] attentionMs(KvCodec codec, BenchCase identity, int d) {
        List<Tensor> keys = new ArrayList<>();
        List<Tensor> values = new ArrayList<>();
        List<Tensor> plainKeys = new ArrayList<>();
        List<Tensor> plainValues = new ArrayList<>();
        try (Tensor k = unitVectors("keys", d, attentionTokens);
             Tensor v = unitVectors("values", d, attentionTokens);
             Tensor q = backend.fromFloats(hostUnitVectors("query", d, QUERY_HEADS / KV_HEADS), Shape.of(1, QUERY_HEADS, 1, d),
                     DType.BF16);
             KvCodec plain = identity == null ? null
                     : identity.provider().create(identity.params(), new CodecContext(backend, 0, KV_HEADS, d, DType.BF16, 0))) {
            keys.addAll(encodeInChunks(codec, KvRole.KEY, k));
            values.addAll(encodeInChunks(codec, KvRole.VALUE, v));
            double scale = 1 / Math.sqrt(d);
            Supplier<List<Tensor>> attend = () -> List.of(codec.attend(q, keys, values, scale, AttentionMask.CAUSAL));
            int timed = Math.max(ATTENTION_REPS, reps);
            if (plain == null) {
                if (warmupMillis > 0) warmUpCalls(ATTENTION_WARMUP_CALLS, attend);
                double[] t = seconds(timed, ATTENTION_WARMUP, attend);
                Measurement.Timing own = new Measurement.Timing(1e3 * t[0], 1e3 * t[1]);
                return new Measurement.Timing[] {own, own};
            }
            plainKeys.addAll(encodeInChunks(plain, KvRole.KEY, k));
            plainValues.addAll(encodeInChunks(plain, KvRole.VALUE, v));
            double[][] t = alternating(timed, ATTENTION_WARMUP, attend,
                    () -> List.of(plain.attend(q, plainKeys, plainValues, scale, AttentionMask.CAUSAL)));
            return new Measurement.Timing[] {new Measurement.Timing(1e3 * t[0][0], 1e3 * t[0][1]),
                    new Measurement.Timing(1e3 * t[1][0], 1e3 * t[1][1])};
        } finally {
            keys.forEach(Tensor::close);
            values.forEach(Tensor::close);
            plainKeys.forEach(Tensor::close);
            plainValues.forEach(Tensor::close);
        }
    }

    /** The planes of borrowed {@code x}, encoded {@value #ENCODE_CHUNK} tokens at a time to bound temporaries. */
    private List<Tensor> encodeInChunks(KvCodec codec, KvRole role, Tensor x) {
        var ops = backend.ops();
        int tokens = x.dim(2);
        List<List<Tensor>> chunks = new ArrayList<>();
        try {
            for (int start = 0; start < tokens; start += ENCODE_CHUNK) {
                try (Tensor part = ops.slice(x, 2, start, Math.min(tokens, start + ENCODE_CHUNK))) {
                    chunks.add(codec.encode(role, part));
                }
            }
            List<Tensor> planes = new ArrayList<>();
            for (int p = 0; p < chunks.getFirst().size(); p++) {
                int plane = p;
                planes.add(ops.concat(chunks.stream().map(c -> c.get(plane)).toList(), 2));
            }
            return planes;
        } finally {
            chunks.forEach(c -> c.forEach(Tensor::close));
        }
    }

    /** Seeded random unit vectors {@code [1, 8, tokens, d]} in bf16, the same for every codec. */
    private Tensor unitVectors(String stream, int d, int tokens) {
        return backend.fromFloats(hostUnitVectors(stream, d, tokens), Shape.of(1, KV_HEADS, tokens, d), DType.BF16);
    }

    private float[] hostUnitVectors(String stream, int d, int tokens) {
        return data.computeIfAbsent(stream + "/" + d + "/" + tokens, key -> {
            SplittableRandom rng = new SplittableRandom(key.hashCode());
            float[] out = new float[KV_HEADS * tokens * d];
            for (int v = 0; v < out.length / d; v++) {
                double norm = 0;
                for (int i = v * d; i < (v + 1) * d; i++) {
                    out[i] = (float) rng.nextGaussian();
                    norm += (double) out[i] * out[i];
                }
                float inv = (float) (1 / Math.sqrt(norm));
                for (int i = v * d; i < (v + 1) * d; i++) out[i] *= inv;
            }
            return out;
        }).clone();
    }

    /**
     * {median, best} wall seconds of {@code reps} runs after {@code warmup} untimed ones; each run's
     * tensors are evaluated, then closed. On a shared machine the best is the run least disturbed by
     * others. With warm-up on, one whole untimed pass of the same loop runs first and the JIT is let go
     * quiet: the loop's own code and the ops' edges (tensor release, lambdas, method-handle links) were
     * still reaching C2 inside the timed window, 3-40 ms of compiling in a 50-100 ms window on a 2-core
     * machine, which took a core from the codec's two threads (JitActivity sampled per call).
     */
    private double[] seconds(int reps, int warmup, Supplier<List<Tensor>> work) {
        warmUpFor(warmupMillis, work);
        double[] seconds = new double[reps];
        if (warmupMillis > 0) {
            timedPass(warmup, work, seconds);
            JitActivity.awaitQuiet(200, 5_000);
        }
        timedPass(warmup, work, seconds);
        Arrays.sort(seconds);
        return new double[] {seconds[reps / 2], seconds[0]};
    }

    /** {@code warmup} untimed runs of {@code work}, then one timed run per slot of {@code seconds}. */
    private void timedPass(int warmup, Supplier<List<Tensor>> work, double[] seconds) {
        for (int r = -warmup; r < seconds.length; r++) {
            long t0 = System.nanoTime();
            List<Tensor> result = work.get();
            backend.eval(result.toArray(Tensor[]::new));
            long t1 = System.nanoTime();
            result.forEach(Tensor::close);
            if (r >= 0) seconds[r] = (t1 - t0) / 1e9;
            if (Boolean.getBoolean("dbg")) System.err.printf("  call %d: %.3f ms%n", r, (t1 - t0) / 1e6);
            // the untimed calls at the timed size can start compilations the smaller warm-up never
            // needed; timed calls that overlap them lose a core to the compiler (20-40 ms stalls)
            if (r < 0 && warmupMillis > 0) JitActivity.awaitQuiet(200, 5_000);
        }
    }

    /**
     * Runs {@code work} untimed for {@code millis} (at least twice) right before it is timed. The
     * case's warm-up passes ran it 100+ times, yet TurboQuant 4/4's decode still took 1.35 ms per call
     * (median of 20) where it settles at 0.65 after another ~200 calls: a late C2 compile of a method
     * the decode calls once per head. Time, not a count, since one call takes 0.1–10 ms by case.
     */
    private void warmUpFor(long millis, Supplier<List<Tensor>> work) {
        long end = System.nanoTime() + millis * 1_000_000;
        for (int calls = 0; calls < 2 || System.nanoTime() < end; calls++) runUntimed(work);
    }

    /** Runs {@code work} untimed {@code calls} times. */
    private void warmUpCalls(int calls, Supplier<List<Tensor>> work) {
        for (int call = 0; call < calls; call++) runUntimed(work);
    }

    /** One untimed run of {@code work}: its tensors evaluated, then closed. */
    private void runUntimed(Supplier<List<Tensor>> work) {
        List<Tensor> result = work.get();
        backend.eval(result.toArray(Tensor[]::new));
        result.forEach(Tensor::close);
    }

    /** {@link #seconds} of two works timed in alternation, call for call: {{median, best} of a, {median, best} of b}. */
    private double[][] alternating(int reps, int warmup, Supplier<List<Tensor>> a, Supplier<List<Tensor>> b) {
        Supplier<List<Tensor>> pair = () -> {
            List<Tensor> both = new ArrayList<>(a.get());
            both.addAll(b.get());
            return both;
        };
        warmUpFor(warmupMillis, pair);
        if (warmupMillis > 0) warmUpCalls(ATTENTION_WARMUP_CALLS, pair);
        double[][] seconds = new double[2][reps];
        for (int r = -warmup; r < reps; r++) {
            for (int which = 0; which < 2; which++) {
                long t0 = System.nanoTime();
                List<Tensor> result = (which == 0 ? a : b).get();
                backend.eval(result.toArray(Tensor[]::new));
                long t1 = System.nanoTime();
                result.forEach(Tensor::close);
                if (r >= 0) seconds[which][r] = (t1 - t0) / 1e9;
                if (Boolean.getBoolean("dbg")) System.err.printf("  call %d %s: %.3f ms%n", r, which == 0 ? "codec" : "identity", (t1 - t0) / 1e6);
            }
            if (r < 0 && warmupMillis > 0) JitActivity.awaitQuiet(200, 5_000);
        }
        Arrays.sort(seconds[0]);
        Arrays.sort(seconds[1]);
        return new double[][] {{seconds[0][reps / 2], seconds[0][0]}, {seconds[1][reps / 2], seconds[1][0]}};
    }
}
