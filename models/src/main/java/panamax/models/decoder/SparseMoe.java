package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Mlp;

/**
 * One sparse MLP layer: a router picks {@code k} experts per token ({@link Routing}); the tokens
 * are grouped by expert and each chosen expert runs once over the tokens routed to it (one
 * product per projection, the routed experts' products of a stage handed to the backend together),
 * so a step computes only the routed experts, never all of them. The
 * outputs are weighted and summed per token; a shared expert, where the family has one, runs on
 * every token and is added times its sigmoid gate. Owns its weights (including the stacked tensors
 * that the experts' views slice, when loaded from mlx-lm's {@code switch_mlp} layout).
 * Thread-safe for concurrent {@link #apply}.
 */
final class SparseMoe implements AutoCloseable {
    private final Linear router;            // (experts, hidden)
    private final List<Mlp> experts;   // each a gated MLP
    private final List<AutoCloseable> stacked; // stacked storage the experts' weights are views of, or empty
    private final int topK;
    private final boolean normalize;
    private final Mlp shared;                // every token's expert, or null
    private final Linear sharedGate;         // (1, hidden), or null

    SparseMoe(Linear router, List<Mlp> experts, List<AutoCloseable> stacked, int topK, boolean normalize) {
        this(router, experts, stacked, topK, normalize, null, null);
    }

    /** With a shared expert and its gate (both null for none); takes ownership of all. */
    SparseMoe(Linear router, List<Mlp> experts, List<AutoCloseable> stacked, int topK, boolean normalize, Mlp shared, Linear sharedGate) {
        if ((shared == null) != (sharedGate == null)) throw new IllegalArgumentException("a shared expert needs its gate, and only it");
        this.router = router;
        this.experts = List.copyOf(experts);
        this.stacked = List.copyOf(stacked);
        this.topK = topK;
        this.normalize = normalize;
        this.shared = shared;
        this.sharedGate = sharedGate;
    }

    int experts() {
        return experts.size();
    }

    /** The routing of {@code x [..., hidden]} (borrowed): router logits in f32, read back, routed on the host. */
    Routing route(Backend backend, Tensor x) {
        Ops ops = backend.ops();
        int hidden = x.dim(-1);
        int tokens = (int) (x.size() / hidden);
        try (Tensor flat = ops.reshape(x, Shape.of(tokens, hidden)); Tensor logits = router.apply(ops, flat)) {
            return Routing.route(backend.toFloats(logits), tokens, experts.size(), topK, normalize);
        }
    }

    /** {@code x [B, T, hidden]} (borrowed) to a new f32 {@code [B, T, hidden]}. */
    Tensor apply(Backend backend, UnaryOp act, Tensor x) {
        return apply(backend, act, x, route(backend, x));
    }

    /** As {@link #apply(Backend, UnaryOp, Tensor)} with a given routing of x's tokens. */
    Tensor apply(Backend backend, UnaryOp act, Tensor x, Routing routing) {
        Ops ops = backend.ops();
        int hidden = x.dim(-1);
        int tokens = routing.tokens(), k = routing.k();
        Routing.Groups groups = routing.group(experts.size());
        List<Tensor> outputs = new ArrayList<>();
        List<Tensor> gathered = new ArrayList<>();
        try (Tensor flat = ops.reshape(x, Shape.of(tokens, hidden))) {
            List<Mlp> routed = new ArrayList<>();
            List<Tensor> inputs = new ArrayList<>();
            for (int e = 0; e < experts.size(); e++) {
                if (groups.count(e) == 0) continue;
                routed.add(experts.get(e));
                int[] rows = groups.tokens(e, k);
                if (everyRowInOrder(rows, tokens)) { // e.g. every expert of a one-token decode step: no gather
                    inputs.add(flat);
                    continue;
                }
                try (Tensor idx = backend.fromInts(rows, Shape.of(rows.length), DType.I32)) {
                    Tensor in = ops.take(flat, idx, 0);
                    gathered.add(in);
                    inputs.add(in);
                }
            }
            // every routed expert's projections in one pass per stage: one expert's are too small to keep the cores busy
            outputs.addAll(Mlp.applyAll(ops, act, routed, inputs));
            int[] order = groups.rowOfSlot();
            try (Tensor all = outputs.size() == 1 ? null : ops.concat(outputs, 0);
                 Tensor idx = backend.fromInts(order, Shape.of(order.length), DType.I32);
                 Tensor bySlot = ops.take(all == null ? outputs.getFirst() : all, idx, 0);
                 Tensor perToken = ops.reshape(bySlot, Shape.of(tokens, k, hidden));
                 Tensor w = backend.fromFloats(routing.weight(), Shape.of(tokens, k, 1), DType.F32);
                 Tensor weighted = ops.mul(perToken, w);
                 Tensor sum = ops.sum(weighted, 1, false)) {
                if (shared == null) return ops.reshape(sum, x.shape());
                // as transformers' Qwen2MoeSparseMoeBlock: routed + sigmoid(gate(x)) · shared(x)
                try (Tensor s = shared.apply(ops, act, flat);
                     Tensor g = sharedGate.apply(ops, flat);
                     Tensor gs = ops.unary(UnaryOp.SIGMOID, g);
                     Tensor scaled = ops.mul(gs, s);
                     Tensor total = ops.add(sum, scaled)) {
                    return ops.reshape(total, x.shape());
                }
            }
        } finally {
            for (Tensor t : outputs) t.close();
            for (Tensor t : gathered) t.close();
        }
    }

    private static boolean everyRowInOrder(int[] rows, int tokens) {
        if (rows.length != tokens) return false;
        for (int i = 0; i < tokens; i++) if (rows[i] != i) return false;
        return true;
    }

    @Override
    public void close() {
        router.close();
        experts.forEach(Mlp::close);
        if (shared != null) shared.close();
        if (sharedGate != null) sharedGate.close();
        for (AutoCloseable a : stacked) {
            try {
                a.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
