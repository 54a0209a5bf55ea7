package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.api.tensor.kernel.GroupedLinearKernels;
import panamax.api.tensor.kernel.LinearWeight;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Mlp;

/**
 * One sparse MLP layer: a router picks {@code k} experts per token ({@link Routing}); the tokens
 * are grouped by expert and each chosen expert runs once over the tokens routed to it (one
 * product per projection; with a backend's {@link GroupedLinearKernels}, all routed experts' gate and
 * up products in one call and their down products in another), so a step computes only the routed
 * experts, never all of them. The outputs are weighted and summed per token; a shared expert, where
 * the family has one, runs on every token and is added times its sigmoid gate. Owns its weights (including the stacked tensors
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
    private final List<LinearWeight[]> plain; // per expert {gate, up, down} for a grouped kernel, or null

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
        this.plain = plainWeights(this.experts);
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
            List<Integer> routed = new ArrayList<>();
            List<Tensor> inputs = new ArrayList<>(); // per routed expert, its tokens' rows (flat itself, or gathered)
            for (int e = 0; e < experts.size(); e++) {
                if (groups.count(e) == 0) continue;
                routed.add(e);
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
            Optional<GroupedLinearKernels> grouped = plain == null ? Optional.empty() : backend.kernel(GroupedLinearKernels.class);
            if (grouped.isPresent()) {
                groupedExperts(grouped.get(), ops, act, routed, inputs, outputs);
            } else {
                for (int i = 0; i < routed.size(); i++) outputs.add(experts.get(routed.get(i)).apply(ops, act, inputs.get(i)));
            }
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

    /**
     * The routed experts' MLPs with all gate and up products in one grouped call, then all down
     * products in another, instead of three products per expert, each joining the backend's threads:
     * the same products on the same inputs, so the same bits as {@link Mlp#apply}. Adds one output per
     * routed expert to {@code outputs} (the caller closes them).
     */
    private void groupedExperts(GroupedLinearKernels kernels, Ops ops, UnaryOp act, List<Integer> routed, List<Tensor> inputs,
                                List<Tensor> outputs) {
        List<Tensor> xs = new ArrayList<>(2 * routed.size());
        List<LinearWeight> ws = new ArrayList<>(2 * routed.size());
        List<LinearWeight> downs = new ArrayList<>(routed.size());
        for (int i = 0; i < routed.size(); i++) {
            LinearWeight[] p = plain.get(routed.get(i));
            xs.add(inputs.get(i));
            ws.add(p[0]);
            xs.add(inputs.get(i));
            ws.add(p[1]);
            downs.add(p[2]);
        }
        List<Tensor> gateUp = kernels.linear(xs, ws);
        List<Tensor> hs = new ArrayList<>(routed.size());
        try {
            for (int i = 0; i < routed.size(); i++) {
                try (Tensor a = ops.unary(act, gateUp.get(2 * i))) {
                    hs.add(ops.mul(a, gateUp.get(2 * i + 1)));
                }
            }
            outputs.addAll(kernels.linear(hs, downs));
        } finally {
            for (Tensor t : gateUp) t.close();
            for (Tensor t : hs) t.close();
        }
    }

    /** Each expert's gate, up and down weights when every expert is a gated MLP of plain projections, else null. */
    private static List<LinearWeight[]> plainWeights(List<Mlp> experts) {
        List<LinearWeight[]> out = new ArrayList<>(experts.size());
        for (Mlp m : experts) {
            if (m.gate() == null) return null;
            Optional<LinearWeight> g = m.gate().plainWeight(), u = m.up().plainWeight(), d = m.down().plainWeight();
            if (g.isEmpty() || u.isEmpty() || d.isEmpty()) return null;
            out.add(new LinearWeight[] {g.get(), u.get(), d.get()});
        }
        return List.copyOf(out);
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
