package panamax.kv.layouts;

import java.util.Map;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.layout.tck.LayoutCase;
import panamax.layout.tck.LayoutTck;

/** The {@code full} layout against the layout TCK's reference model. */
class FullLayoutTckTest extends LayoutTck {
    @Override
    protected KvLayoutProvider provider() {
        return new FullLayoutProvider();
    }

    @Override
    protected Gen<LayoutCase> cases() {
        return Generate.constant(LayoutCase.keepingAll(Map.of()));
    }

    @Override
    protected void checkStorage(KvLayout layout, long heldBytes) {
        CapacityCheck.check(layout, heldBytes);
    }
}
