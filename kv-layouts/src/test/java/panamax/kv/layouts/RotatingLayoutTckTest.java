package panamax.kv.layouts;

import java.util.List;
import java.util.Map;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.layout.tck.LayoutCase;
import panamax.layout.tck.LayoutTck;

/** The {@code rotating} layout (windows 3, 5, 8; keep 0 to 2) against the layout TCK's reference model. */
class RotatingLayoutTckTest extends LayoutTck {
    @Override
    protected KvLayoutProvider provider() {
        return new RotatingLayoutProvider();
    }

    @Override
    protected Gen<LayoutCase> cases() {
        return Generate.pick(List.of(3, 5, 8)).zip(Generate.range(0, 2), (window, keep) ->
                LayoutCase.window(Map.of("window", "" + window, "keep", "" + keep), window, keep));
    }

    @Override
    protected void checkStorage(KvLayout layout, long heldBytes) {
        CapacityCheck.check(layout, heldBytes);
    }
}
