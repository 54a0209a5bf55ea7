package panamax.engine.plan;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.kv.PluginParams;
import panamax.api.model.LayerKvNeed;

class MemoryProjectionProperties {
    private static final Fakes.Layout ROTATING = (Fakes.Layout) Fakes.rotating(false);
    private static final Fakes.Layout FULL = (Fakes.Layout) Fakes.full(false);

    /** Layer i is full when windows[i] is 0, else it slides over windows[i] tokens. */
    private static MemoryProjection projection(List<Integer> windows, List<Integer> bytes) {
        List<LayerChoice> layers = new ArrayList<>();
        for (int i = 0; i < windows.size(); i++) {
            int w = windows.get(i);
            long b = bytes.get(i % bytes.size());
            LayerKvNeed need = w == 0 ? LayerKvNeed.full(i, 1, 64) : LayerKvNeed.sliding(i, w, 1, 64);
            layers.add(w == 0 ? new LayerChoice(need, "full", FULL, PluginParams.empty(), b, b, -1, "full")
                    : new LayerChoice(need, "rotating", ROTATING, PluginParams.of(Map.of("window", Integer.toString(w))), b, b, -1, "sliding"));
        }
        return new MemoryProjection(layers);
    }

    @Test
    void theMaxContextFitsTheBudgetAndOneMoreTokenDoesNot() {
        qt().forAll(lists().of(integers().between(0, 3000)).ofSizeBetween(1, 12),
                        lists().of(integers().between(1, 5000)).ofSizeBetween(1, 4),
                        longs().between(0, 1L << 36), integers().between(1, 8))
                .checkAssert((windows, bytes, budget, rows) -> {
                    MemoryProjection memory = projection(windows, bytes);
                    long max = memory.maxContext(budget, rows);
                    if (max == MemoryProjection.UNBOUNDED) {
                        org.junit.jupiter.api.Assertions.assertTrue(memory.allBounded(), "unbounded only when every layer is bounded");
                        org.junit.jupiter.api.Assertions.assertTrue(memory.bytes(1L << 40, rows) <= budget);
                    } else {
                        org.junit.jupiter.api.Assertions.assertTrue(memory.bytes(max, rows) <= budget, "max context fits");
                        org.junit.jupiter.api.Assertions.assertTrue(memory.bytes(max + 1, rows) > budget, "one more token does not");
                    }
                });
    }
}
