package ${package};

import java.util.Map;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.kv.KvLayoutProvider;
import panamax.layout.tck.LayoutCase;
import panamax.layout.tck.LayoutTck;

/**
 * The layout against panamax's layout conformance kit: generated sequences of appends, prefill
 * cohorts, filters, merges, extracts, trims, speculative rounds and row alignment, checked after
 * every step against a plain reference model.
 */
class ForwardingLayoutTckTest extends LayoutTck {
    @Override
    protected KvLayoutProvider provider() {
        return new ForwardingLayoutProvider();
    }

    /** The parameter sets to run, each with the rule it follows: this layout takes none and keeps every token. */
    @Override
    protected Gen<LayoutCase> cases() {
        return Generate.constant(LayoutCase.keepingAll(Map.of()));
    }
}
