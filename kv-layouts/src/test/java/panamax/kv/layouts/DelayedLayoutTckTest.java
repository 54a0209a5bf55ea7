package panamax.kv.layouts;

import java.util.List;
import java.util.Map;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.layout.tck.LayoutCase;
import panamax.layout.tck.LayoutTck;

/**
 * The {@code delayed} layout over full and rotating storage, with starts the sequences cross,
 * against the layout TCK's reference model: rows are exact until their offset reaches start, then
 * within the codec's bound.
 */
class DelayedLayoutTckTest extends LayoutTck {
    @Override
    protected KvLayoutProvider provider() {
        return new DelayedLayoutProvider();
    }

    @Override
    protected Gen<LayoutCase> cases() {
        Gen<LayoutCase> storage = Generate.frequency(List.of(
                Pair.of(1, Generate.constant(LayoutCase.keepingAll(Map.of("storage", "full")))),
                Pair.of(1, Generate.pick(List.of(3, 5, 8)).zip(Generate.range(0, 1), (w, k) ->
                        LayoutCase.window(Map.of("storage", "rotating", "window", "" + w, "keep", "" + k), w, k)))));
        return storage.zip(Generate.pick(List.of(0, 3, 6, 10)), (c, start) -> {
            var params = new java.util.HashMap<>(c.params());
            params.put("start", "" + start);
            return new LayoutCase(params, c.window(), c.keep(), start);
        });
    }

    @Override
    protected void checkStorage(KvLayout layout, long heldBytes) {
        CapacityCheck.check(layout, heldBytes);
    }
}
