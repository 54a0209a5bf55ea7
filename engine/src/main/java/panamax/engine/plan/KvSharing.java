package panamax.engine.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import panamax.api.model.LayerKvNeed;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.ResolvedExecution;

/**
 * Which layers of a plan read another layer's KV instead of storing their own (a model's declared
 * donors, e.g. Gemma 3n's last {@code num_kv_shared_layers}), and the bytes that saves at the
 * planned context: what each borrower would hold in its donor's layout and codec.
 *
 * @param borrowers   borrowing layer → its donor, in layer order
 * @param savedBytes  KV bytes the borrowers would hold for all rows at the planned context if they stored their own
 */
public record KvSharing(Map<Integer, Integer> borrowers, long savedBytes) {
    public KvSharing {
        borrowers = java.util.Collections.unmodifiableMap(new TreeMap<>(borrowers));
    }

    /** The sharing of {@code plan}'s model; empty borrowers when no layer names a donor. */
    public static KvSharing of(ResolvedExecution plan) {
        Map<Integer, Integer> borrowers = new TreeMap<>();
        long saved = 0;
        int rows = plan.requirements().batchSize();
        for (LayerKvNeed need : plan.requirements().model().layers()) {
            if (!need.hasDonor()) continue;
            borrowers.put(need.layer(), need.donor());
            LayerPlan donor = plan.layers().get(need.donor());
            saved = saturatingAdd(saved, saturatingMultiply(saturatingMultiply(donor.bytesPerToken(), donor.storedTokens()), rows));
        }
        return new KvSharing(borrowers, saved);
    }

    /** Whether any layer borrows. */
    public boolean any() {
        return !borrowers.isEmpty();
    }

    /** The layers that read {@code donor}'s KV, ascending. */
    public List<Integer> borrowersOf(int donor) {
        List<Integer> out = new ArrayList<>();
        borrowers.forEach((b, d) -> {
            if (d == donor) out.add(b);
        });
        return out;
    }

    private static long saturatingMultiply(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    private static long saturatingAdd(long a, long b) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }
}
