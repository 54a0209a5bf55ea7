package panamax.engine.generate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import panamax.api.kv.KvLayout;
import panamax.api.model.KvState;
import panamax.engine.speculative.Speculation;
import panamax.engine.speculative.SpeculationPlanner;
import panamax.engine.speculative.SpeculativeDecoder;
import panamax.engine.speculative.SpeculativeRow;

/** The rows of one {@link Generator} call as {@link SpeculativeDecoder} sees them. Not thread-safe. */
final class SpeculativeRows {
    private final SpeculativeDecoder decoder;
    private final Map<RowState, SpeculativeRow> rows = new IdentityHashMap<>();

    SpeculativeRows(Speculation speculation, ForwardPass forward, List<RowState> states, GenerationListener listener) {
        this.decoder = speculation.decoder(forward);
        for (RowState state : states) {
            long key = speculation.newKey();
            boolean speculates = SpeculationPlanner.rowRefusal(false, state.request().constraint() != null).isEmpty();
            rows.put(state, new SpeculativeRow() {
                @Override
                public long key() {
                    return key;
                }

                @Override
                public RowState state() {
                    return state;
                }

                @Override
                public boolean speculates() {
                    return speculates;
                }

                @Override
                public void step(float[] logits, int from, int vocab) {
                    state.step(logits, from, vocab, listener);
                }

                @Override
                public void accept(int id, float[] logits, int from, int vocab) {
                    state.accept(id, listener);
                }
            });
        }
    }

    /** One speculative decode step of the active rows (in cache order). */
    void step(KvState kv, Collection<KvLayout> layouts, List<RowState> active) {
        List<SpeculativeRow> ordered = new ArrayList<>(active.size());
        for (RowState s : active) ordered.add(rows.get(s));
        decoder.step(kv, layouts, ordered);
    }
}
