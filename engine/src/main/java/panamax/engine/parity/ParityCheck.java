package panamax.engine.parity;

import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import panamax.api.kv.KvLayout;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.LogitSelection;
import panamax.api.model.RuntimeModel;
import panamax.api.plan.Batching;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.Method;
import panamax.api.plan.ResolvedExecution;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.engine.plan.ExecutionPlanner;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.runtime.LayerCaches;

/**
 * Compares a loaded model against reference logits the way the fixtures define them: one prefill
 * of the single prompt (logits at every position), its KV-cached decode fed the reference greedy
 * ids, and a left-padded batch prefilled as one cohort then decoded together. The KV cache is
 * planned and built exactly as for generation, under the given KV scheme. Stateless; thread-safe.
 */
public final class ParityCheck {
    private final ExecutionPlanner planner;
    private final KvStateFactory factory;
    private final KvScheme kv;

    public ParityCheck(ExecutionPlanner planner, KvStateFactory factory, KvScheme kv) {
        this.planner = planner;
        this.factory = factory;
        this.kv = kv;
    }

    /** Running counts over the compared rows of logits. */
    private static final class Tally {
        double single, steps, batch;
        int positions, matches, decisive;

        /** Compares one row of logits: max |Δ| and whether the argmax agrees. */
        double row(float[] ours, int oursFrom, float[] ref, int refFrom, int vocab) {
            double max = 0;
            int ourBest = oursFrom, refBest = refFrom;
            for (int j = 0; j < vocab; j++) {
                max = Math.max(max, Math.abs(ours[oursFrom + j] - ref[refFrom + j]));
                if (ours[oursFrom + j] > ours[ourBest]) ourBest = oursFrom + j;
                if (ref[refFrom + j] > ref[refBest]) refBest = refFrom + j;
            }
            float second = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < vocab; j++) if (refFrom + j != refBest) second = Math.max(second, ref[refFrom + j]);
            positions++;
            if (ourBest - oursFrom == refBest - refFrom) {
                matches++;
            } else if (ref[refBest] - second > 2 * max) {
                decisive++;
            }
            return max;
        }
    }

    /**
     * Runs the comparison on {@code backend} (borrowed), which must be the backend the model was loaded on.
     *
     * @throws panamax.api.error.UnsupportedCombinationException when no plan fits the KV scheme
     */
    public ParityReport check(RuntimeModel model, Backend backend, ParityReference ref) {
        Tally tally = new Tally();
        single(model, backend, ref, tally);
        batch(model, backend, ref, tally);
        return new ParityReport(tally.single, tally.steps, tally.batch, tally.positions == 0 ? 1 : (double) tally.matches / tally.positions,
                tally.positions, tally.decisive);
    }

    /** The plan the check runs for {@code rows} rows of {@code context} tokens. */
    public ResolvedExecution plan(RuntimeModel model, Backend backend, int rows, int context) {
        return planner.resolve(new ExecutionRequirements(model.spec(), Optional.of(backend.name()), kv, Batching.SERIAL,
                Method.AUTOREGRESSIVE, rows, context, 0, false));
    }

    private void single(RuntimeModel model, Backend backend, ParityReference ref, Tally tally) {
        AutoregressiveGraph graph = model.graph();
        int t = ref.singleIds().length, n = ref.singleGreedy().length, v = ref.vocab();
        try (LayerCaches caches = factory.create(plan(model, backend, 1, t + n), backend, 1)) {
            float[] logits = run(graph, backend, caches, new int[][]{ref.singleIds()}, LogitSelection.ALL);
            for (int p = 0; p < t; p++) tally.single = Math.max(tally.single, tally.row(logits, p * v, ref.singleLogits(), p * v, v));
            for (int i = 0; i < n; i++) {
                float[] step = run(graph, backend, caches, new int[][]{{ref.singleGreedy()[i]}}, LogitSelection.LAST);
                tally.steps = Math.max(tally.steps, tally.row(step, 0, ref.singleStepLogits(), i * v, v));
            }
        }
    }

    private void batch(RuntimeModel model, Backend backend, ParityReference ref, Tally tally) {
        AutoregressiveGraph graph = model.graph();
        int b = ref.batchIds().length, t = ref.batchIds()[0].length, n = ref.batchGreedy()[0].length, v = ref.vocab();
        int[] lengths = new int[b], left = new int[b];
        for (int r = 0; r < b; r++) {
            lengths[r] = Arrays.stream(ref.batchMask()[r]).sum();
            left[r] = t - lengths[r];
        }
        try (LayerCaches caches = factory.create(plan(model, backend, b, t + n), backend, b)) {
            Set<KvLayout> layouts = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = 0; i < caches.layers(); i++) layouts.add(caches.layer(i));
            for (KvLayout l : layouts) l.preparePrefill(lengths, left, new int[b]);
            float[] last = run(graph, backend, caches, ref.batchIds(), LogitSelection.LAST);
            for (KvLayout l : layouts) l.finalizePrefill();
            for (int r = 0; r < b; r++) tally.batch = Math.max(tally.batch, tally.row(last, r * v, ref.batchLastLogits(), r * v, v));
            for (int i = 0; i < n; i++) {
                int[][] column = new int[b][];
                for (int r = 0; r < b; r++) column[r] = new int[]{ref.batchGreedy()[r][i]};
                float[] step = run(graph, backend, caches, column, LogitSelection.LAST);
                for (int r = 0; r < b; r++) {
                    tally.batch = Math.max(tally.batch, tally.row(step, r * v, ref.batchStepLogits(), (r * n + i) * v, v));
                }
            }
        }
    }

    /** One forward pass over {@code ids [B, T]}; the selected logits, row-major. */
    private static float[] run(AutoregressiveGraph graph, Backend backend, LayerCaches caches, int[][] ids, LogitSelection selection) {
        int b = ids.length, t = ids[0].length;
        int[] flat = new int[b * t];
        for (int r = 0; r < b; r++) System.arraycopy(ids[r], 0, flat, r * t, t);
        try (Tensor in = backend.fromInts(flat, Shape.of(b, t), DType.I32);
             Tensor hidden = graph.forwardHidden(in, caches);
             Tensor logits = graph.projectLogits(hidden, selection)) {
            return backend.toFloats(logits);
        }
    }
}
