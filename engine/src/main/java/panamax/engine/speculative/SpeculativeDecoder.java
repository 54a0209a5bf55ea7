package panamax.engine.speculative;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import panamax.api.draft.Draft;
import panamax.api.draft.DraftRow;
import panamax.api.draft.Drafter;
import panamax.api.kv.SpeculativeRounds;
import panamax.api.model.KvState;
import panamax.api.model.LogitSelection;
import panamax.engine.generate.ForwardPass;
import panamax.engine.generate.RowState;

/**
 * One decode step with drafts: asks the drafter for up to K tokens per speculating row, runs every
 * row's newest token and its draft through the target in ONE forward pass (each row padded to the
 * longest draft) with logits for the whole drafted range, accepts per row
 * ({@link DraftVerification}), and rolls each layout back to what each row accepted through a
 * speculative round ({@link SpeculativeRounds#beginRound} / {@link SpeculativeRounds#rollback}).
 * When no row has a draft the step is a plain one-token decode. Borrows everything; used by one thread.
 */
public final class SpeculativeDecoder {
    private final ForwardPass forward;
    private final Drafter drafter;
    private final int draftTokens;
    private final int vocab;
    private final SpeculationStats stats;

    /**
     * @param draftTokens the most tokens drafted per row and step (K)
     * @param vocab       rows of the target's logits (draft ids must lie below it)
     */
    public SpeculativeDecoder(ForwardPass forward, Drafter drafter, int draftTokens, int vocab, SpeculationStats stats) {
        if (draftTokens < 1) throw new IllegalArgumentException("draft tokens: expected at least 1, found " + draftTokens);
        this.forward = forward;
        this.drafter = drafter;
        this.draftTokens = draftTokens;
        this.vocab = vocab;
        this.stats = stats;
    }

    /**
     * Advances every row by at least one token. {@code kv} holds row i's prompt and every generated
     * token but its newest, and holds exactly that again afterwards.
     *
     * @param layouts each of {@code kv}'s layouts once; the step opens, bounds and rolls back their rounds
     */
    public void step(KvState kv, Collection<? extends SpeculativeRounds> layouts, List<? extends SpeculativeRow> rows) {
        int n = rows.size();
        Draft[] drafts = drafts(rows);
        int width = 0;
        for (Draft d : drafts) width = Math.max(width, d.length());
        // Every row appends width + 1 columns in the round (padding included), so the batch's
        // width is bounded by the row closest to a precision change of a delayed layout.
        for (int i = 0; i < n && width > 0; i++) {
            for (SpeculativeRounds layout : layouts) width = Math.min(width, Math.max(0, layout.exactRoundTokens(i) - 1));
        }
        for (int i = 0; i < n; i++) drafts[i] = drafts[i].truncate(width);
        if (width == 0) {
            plainStep(kv, rows);
            return;
        }
        int columns = width + 1;
        int[] ids = new int[n * columns];
        for (int i = 0; i < n; i++) {
            RowState s = rows.get(i).state();
            int last = s.lastToken();
            ids[i * columns] = last;
            int[] d = drafts[i].tokens();
            // rows with shorter drafts are padded with their newest token; the padding is rolled back
            for (int j = 0; j < width; j++) ids[i * columns + 1 + j] = j < d.length ? d[j] : last;
        }
        for (SpeculativeRounds layout : layouts) layout.beginRound();
        float[] logits;
        try {
            logits = forward.run(kv, ids, n, columns, new LogitSelection.Range(0, columns));
        } catch (RuntimeException e) {
            int[] none = new int[n];
            for (SpeculativeRounds layout : layouts) layout.rollback(none);
            throw e;
        }
        int v = logits.length / (n * columns);
        int[] keep = new int[n];
        int drafted = 0, accepted = 0, produced = 0;
        for (int i = 0; i < n; i++) {
            SpeculativeRow row = rows.get(i);
            int before = row.state().generated();
            int a = DraftVerification.verify(row, drafts[i], logits, i * columns * v, v);
            keep[i] = 1 + a; // the newest token and the accepted drafts are now in the cache
            drafted += drafts[i].length();
            accepted += a;
            produced += row.state().generated() - before;
        }
        for (SpeculativeRounds layout : layouts) layout.rollback(keep);
        stats.record(n, drafted, accepted, produced, true);
    }

    private void plainStep(KvState kv, List<? extends SpeculativeRow> rows) {
        int n = rows.size();
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) ids[i] = rows.get(i).state().lastToken();
        float[] logits = forward.run(kv, ids, n, 1, true);
        int v = logits.length / n;
        for (int i = 0; i < n; i++) rows.get(i).step(logits, i * v, v);
        stats.record(n, 0, 0, n, false);
    }

    /** Per row, its draft cut to what the row may still use (one token of every step is the target's own). */
    private Draft[] drafts(List<? extends SpeculativeRow> rows) {
        Draft[] drafts = new Draft[rows.size()];
        List<DraftRow> asks = new ArrayList<>();
        List<Integer> asked = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            drafts[i] = Draft.NONE;
            SpeculativeRow row = rows.get(i);
            RowState s = row.state();
            if (!row.speculates() || Math.min(draftTokens, s.remaining() - 1) < 1) continue;
            asks.add(new DraftRow(row.key(), s.history(), s.historyLength(), s.sampler().params().temperature(),
                    s.sampler().params().seed()));
            asked.add(i);
        }
        if (asks.isEmpty()) return drafts;
        List<Draft> got = drafter.draft(asks, draftTokens);
        if (got.size() != asks.size()) {
            throw new IllegalStateException("the drafter returned " + got.size() + " drafts for " + asks.size() + " rows");
        }
        for (int j = 0; j < got.size(); j++) {
            int i = asked.get(j);
            Draft d = got.get(j);
            for (int id : d.tokens()) {
                if (id < 0 || id >= vocab) throw new IllegalStateException("the drafter proposed id " + id + ", outside the vocabulary [0, " + vocab + ")");
            }
            if (d.probabilities() != null) {
                for (float[] q : d.probabilities()) {
                    if (q.length != vocab) throw new IllegalStateException("the drafter's distribution has " + q.length + " entries, the vocabulary " + vocab);
                }
            }
            drafts[i] = d.truncate(Math.min(draftTokens, rows.get(i).state().remaining() - 1));
        }
        return drafts;
    }
}
