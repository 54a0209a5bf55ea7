package panamax.bench.engine;

import java.util.Arrays;
import java.util.Optional;
import java.util.SplittableRandom;
import panamax.bench.jit.JitActivity;
import panamax.api.kv.KvLayout;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.LogitSelection;
import panamax.api.model.ModelSpec;
import panamax.api.plan.Batching;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.Method;
import panamax.api.plan.ResolvedExecution;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.runtime.LayerCaches;
import panamax.engine.wiring.Engine;

/**
 * Times one loaded model's forward passes exactly as the generation loop runs them: caches planned
 * by the engine's planner for the KV scheme and built by {@link KvStateFactory}, then
 * {@code forwardHidden} and {@code projectLogits(LAST)}, logits copied to the host and the next ids
 * picked by argmax. Borrows the graph and backend. Not thread-safe.
 */
final class DecodeMeasurement {
    /**
     * Tokens per second of one decode batch, and what the caches held. {@link #fastestStep} is the
     * shortest single step: on a shared machine it is the closest to an uncontended step, and the
     * comparable figure to the probes, which also keep their best pass. {@code faults} are the
     * process's page faults during the timed steps: near zero when every weight page was already
     * mapped in (the steps measure a steady state), thousands when they also paid for first touches.
     * {@code timedFrom} is the tokens each row's cache held when the timed steps began: the context and the
     * warm-up steps that kept their token. {@code stepNanos} holds every timed step in order; {@code seconds} is their
     * time in all.
     */
    record Decode(int batch, int context, int warmupSteps, int timedFrom, double seconds, long kvBytesPerToken, PageFaults faults,
                  long[] stepNanos) {
        int steps() {
            return stepNanos.length;
        }

        /** The shortest step, in seconds. */
        double fastestStep() {
            return Arrays.stream(stepNanos).min().orElseThrow() / 1e9;
        }

        double aggregateTokensPerSecond() {
            return batch * steps() / seconds;
        }

        double fastestStepTokensPerSecond() {
            return batch / fastestStep();
        }

        /**
         * The median step of each tenth of the timed steps, in milliseconds (none under 20 steps): a warm-up that ended
         * with the JIT still busy shows as first tenths slower than the rest, a machine that changed speed as a drift.
         */
        double[] tenthMedianMillis() {
            if (stepNanos.length < 20) return new double[0];
            double[] out = new double[10];
            for (int t = 0; t < 10; t++) {
                long[] part = Arrays.copyOfRange(stepNanos, t * stepNanos.length / 10, (t + 1) * stepNanos.length / 10);
                Arrays.sort(part);
                out[t] = part[part.length / 2] / 1e6;
            }
            return out;
        }
    }

    /** Prefill passes of {@code tokens} tokens at batch 1: {@code seconds} their mean, {@code fastest} the quickest, {@code passes} how many were timed. */
    record Prefill(int tokens, double seconds, double fastest, int passes) {
        double tokensPerSecond() {
            return tokens / seconds;
        }

        double bestTokensPerSecond() {
            return tokens / fastest;
        }
    }

    private final Engine engine;
    private final ModelSpec spec;
    private final KvScheme kv;
    private final AutoregressiveGraph graph;
    private final Backend backend;
    private final KvStateFactory factory;
    private final SplittableRandom random;
    private OpTimer timer;

    DecodeMeasurement(Engine engine, ModelSpec spec, KvScheme kv, AutoregressiveGraph graph, Backend backend, long seed) {
        this.engine = engine;
        this.spec = spec;
        this.kv = kv;
        this.graph = graph;
        this.backend = backend;
        this.factory = KvStateFactory.of(engine.registry());
        this.random = new SplittableRandom(seed);
    }

    /** Records the ops of the timed decode steps (not the fill or warm-up) into {@code timer}. */
    DecodeMeasurement recordingInto(OpTimer timer) {
        this.timer = timer;
        return this;
    }

    /** Caches for {@code rows} rows of up to {@code tokens} tokens, as the planner lays them out for the scheme. */
    LayerCaches caches(int rows, long tokens) {
        ResolvedExecution plan = engine.planner().resolve(new ExecutionRequirements(spec, Optional.of(backend.name()), kv,
                Batching.SERIAL, Method.AUTOREGRESSIVE, rows, tokens, 0, false));
        return factory.create(plan, backend, rows);
    }

    /** Timed prefills after the warm-up, at least; the row reports their mean and the fastest. */
    static final int PREFILL_REPEATS = 2;
    /** Timed prefills go on past {@link #PREFILL_REPEATS} until they add up to this long ({@link #PREFILL_MAX_REPEATS} at most). */
    private static final long PREFILL_TIMED_NANOS = 500_000_000L;
    private static final int PREFILL_MAX_REPEATS = 64;
    /**
     * Prefills {@code tokens} random ids at batch 1 (logits of the last position only) in fresh caches:
     * one untimed pass, then more as decode warms up ({@link JitActivity#runUntilQuiet(JitActivity.Step)}: until the JIT has
     * done no work for half a second), then timed ones: {@link #PREFILL_REPEATS}, and more until they add up to half a second
     * (a short pass alone is one scheduler tick of noise). A cold first pass timed the compiler: the demo model's
     * 512 tokens took 2.2 s cold. A cap of four untimed passes, each ending the warm-up if the JIT did nothing
     * during it, left short prefills timed against a busy compiler (the demo's 16 tokens: 40-60 ms, 10 ms warm).
     */
    Prefill prefill(int tokens) {
        prefillOnce(tokens); // whatever the JIT figure says (none: the warm-up below runs nothing)
        JitActivity.runUntilQuiet(() -> prefillOnce(tokens));
        double total = 0, fastest = Double.MAX_VALUE;
        int passes = 0;
        while (passes < PREFILL_REPEATS || passes < PREFILL_MAX_REPEATS && total * 1e9 < PREFILL_TIMED_NANOS) {
            double seconds = prefillOnce(tokens);
            total += seconds;
            fastest = Math.min(fastest, seconds);
            passes++;
        }
        return new Prefill(tokens, total / passes, fastest, passes);
    }

    private double prefillOnce(int tokens) {
        try (LayerCaches caches = caches(1, tokens + 1)) {
            int[] ids = randomIds(1, tokens);
            long start = System.nanoTime();
            forward(ids, 1, tokens, caches);
            return (System.nanoTime() - start) / 1e9;
        }
    }

    /**
     * Fills each row's cache with {@code context} tokens, runs at least {@code warmup} untimed
     * decode steps and then more until the JIT's compiler threads have used no CPU for half a second (at most
     * 20 s), then times {@code steps} steps of all rows. The extra steps matter: until C2 has compiled the kernels a
     * decode step is up to 3x slower, and on two cores the compiler threads also take time from the timed steps (q4 1B
     * at batch 1: 12.6 tok/s after 4 warm-up steps, 18.4 after 40). They give their token back
     * ({@link Rows#warmStep}), so the timed steps attend over the same context however long the JIT took; a cap of 64
     * of them, which kept the context from growing before, ended the demo model's warm-up while C2 was still
     * compiling, and its first timed second of batch-8 steps ran 1.5x slower than the rest.
     *
     * @param realPrefill prefill the context through the model; otherwise append random keys and
     *                    values of the same shape and dtype to every layer (same bytes to attend
     *                    over, a fraction of the time)
     */
    Decode decode(int rows, int context, int warmup, int steps, boolean realPrefill) {
        try (Rows run = new Rows(rows, context, warmup, steps, realPrefill)) {
            int warmed = warmup + warmUp(run);
            int timedFrom = context + run.kept;
            if (timer != null) timer.recording = true;
            PageFaults before = PageFaults.now();
            long start = System.nanoTime();
            long[] each = new long[steps];
            for (int i = 0; i < steps; i++) each[i] = run.step();
            double seconds = (System.nanoTime() - start) / 1e9;
            PageFaults faults = PageFaults.now().since(before);
            if (timer != null) timer.recording = false;
            return new Decode(rows, context, warmed, timedFrom, seconds, run.caches.bytesPerToken(), faults, each);
        }
    }

    /** The same decode timed on two KV schemes of one model, step by step in turn. */
    record Paired(Decode first, Decode second) {
    }

    /**
     * {@link #decode} of {@code first} and {@code second} (two KV schemes over one model and backend) at once: both
     * caches filled and warmed, then their timed steps alternate (first, second; then second, first), so a change in
     * the machine's load or memory speed during the run reaches both alike (on a shared VM whose read bandwidth swings
     * 15 % within minutes, two blocks of steps one after the other compare two moments as much as two caches). Page
     * faults are those of both schemes' timed steps together.
     */
    static Paired decodePaired(DecodeMeasurement first, DecodeMeasurement second, int rows, int context, int warmup, int steps,
                               boolean realPrefill) {
        try (Rows a = first.new Rows(rows, context, warmup, steps, realPrefill);
             Rows b = second.new Rows(rows, context, warmup, steps, realPrefill)) {
            int warmed = warmup + warmUp(a, b);
            int timedFrom = context + a.kept;
            PageFaults before = PageFaults.now();
            long[] eachA = new long[steps], eachB = new long[steps];
            for (int i = 0; i < steps; i++) {
                if (i % 2 == 0) {
                    eachA[i] = a.step();
                    eachB[i] = b.step();
                } else {
                    eachB[i] = b.step();
                    eachA[i] = a.step();
                }
            }
            PageFaults faults = PageFaults.now().since(before);
            return new Paired(new Decode(rows, context, warmed, timedFrom, Arrays.stream(eachA).sum() / 1e9, a.caches.bytesPerToken(), faults, eachA),
                    new Decode(rows, context, warmed, timedFrom, Arrays.stream(eachB).sum() / 1e9, b.caches.bytesPerToken(), faults, eachB));
        }
    }

    /**
     * Warm-up steps per cycle of context lengths. Trimmed after every step, the warm-up attended over one length, so
     * the JIT profiled kernels whose tails branch on the number of keys (modulo a vector's lanes: {@code
     * VectorMath.expShifted}, {@code KeyScores.f32}) at that length only, and the timed steps, one token longer each,
     * reached the untaken branch within a vector's worth of steps: the method deoptimized and ran in a slower tier
     * while C2 compiled it again (MoE preset, 2026-12-06: tenths of the timed steps at 19–21 ms against 14–15).
     */
    static final int WARM_CYCLE = 32;

    /**
     * The untimed steps after the rows' minimum warm-up, each row's in turn: one whole cycle of context lengths, then as
     * many more as the JIT needs ({@link JitActivity#runUntilQuiet}); then every row gives the warm-up's tokens back.
     * Returns how many steps ran.
     */
    private static int warmUp(Rows... rows) {
        JitActivity.Step<RuntimeException> step = () -> {
            for (Rows r : rows) r.warmStep();
        };
        for (int i = 0; i < WARM_CYCLE; i++) step.run();
        int steps = WARM_CYCLE + JitActivity.runUntilQuiet(step);
        for (Rows r : rows) r.giveBack();
        return steps;
    }

    /**
     * Rows being decoded: caches for the context, the warm-up and the timed steps, filled with {@code context}
     * tokens and past {@code warmup} untimed steps. {@link #step} runs one more and returns its nanoseconds.
     */
    final class Rows implements AutoCloseable {
        final LayerCaches caches;
        private final int rows;
        private int[] next;
        /** Tokens the steps appended and kept: the warm-up's minimum, and any step a wrapped window could not trim. */
        int kept;

        Rows(int rows, int context, int warmup, int steps, boolean realPrefill) {
            this.rows = rows;
            this.caches = caches(rows, (long) context + warmup + WARM_CYCLE + steps + 2);
            try {
                if (realPrefill) {
                    next = forward(randomIds(rows, context), rows, context, caches);
                } else {
                    fillRandom(caches, rows, context);
                    next = randomIds(rows, 1);
                }
                for (int i = 0; i < warmup; i++) next = forward(next, rows, 1, caches);
                kept = warmup;
            } catch (RuntimeException | Error e) {
                caches.close();
                throw e;
            }
        }

        long step() {
            long t0 = System.nanoTime();
            next = forward(next, rows, 1, caches);
            return System.nanoTime() - t0;
        }

        /** Warm-up steps appended since the rows were last trimmed back. */
        private int grown;

        /**
         * One more untimed step. Its token stays until {@link #WARM_CYCLE} of them have been appended, then all are
         * trimmed off every row together ({@link #giveBack}), so the warm-up attends over every length of a cycle and the
         * context keeps where the warm-up started. A window that wrapped cannot trim, and needs not: its context no longer
         * grows.
         */
        void warmStep() {
            step();
            if (++grown == WARM_CYCLE) giveBack();
        }

        /**
         * Trims the warm-up steps' tokens still appended (at a cycle's end, and at the warm-up's), counting them as kept
         * where a wrapped window cannot trim.
         */
        void giveBack() {
            if (!caches.trim(grown)) kept += grown;
            grown = 0;
        }

        @Override
        public void close() {
            caches.close();
        }
    }

    /** One forward pass over ids {@code [rows, columns]}; returns each row's argmax next id. */
    private int[] forward(int[] ids, int rows, int columns, LayerCaches caches) {
        try (Tensor input = backend.fromInts(ids, Shape.of(rows, columns), DType.I32);
             Tensor hidden = graph.forwardHidden(input, caches);
             Tensor logits = graph.projectLogits(hidden, LogitSelection.LAST)) {
            float[] values = backend.toFloats(logits);
            int vocab = values.length / rows;
            int[] next = new int[rows];
            for (int r = 0; r < rows; r++) {
                int best = 0;
                for (int v = 1; v < vocab; v++) if (values[r * vocab + v] > values[r * vocab + best]) best = v;
                next[r] = best;
            }
            return next;
        }
    }

    private void fillRandom(LayerCaches caches, int rows, int context) {
        java.util.Set<KvLayout> done = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int layer = 0; layer < caches.layers(); layer++) {
            KvLayout l = caches.layer(layer);
            if (!done.add(l)) continue; // a layer reading a donor's cache shares it
            int kvHeads = spec.layers().get(layer).kvHeads();
            int headDim = spec.layers().get(layer).headDim();
            Shape shape = Shape.of(rows, kvHeads, context, headDim);
            try (Tensor k = backend.fromFloats(randomFloats((int) shape.size()), shape, spec.activationType());
                 Tensor v = backend.fromFloats(randomFloats((int) shape.size()), shape, spec.activationType())) {
                l.append(k, v);
            }
        }
    }

    private float[] randomFloats(int n) {
        float[] out = new float[n];
        for (int i = 0; i < n; i++) out[i] = (float) (random.nextDouble() * 2 - 1);
        return out;
    }

    private int[] randomIds(int rows, int columns) {
        int[] ids = new int[rows * columns];
        for (int i = 0; i < ids.length; i++) ids[i] = random.nextInt(spec.vocabSize());
        return ids;
    }
}
