package panamax.engine.speculative;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import panamax.api.draft.Draft;
import panamax.api.draft.DraftRow;
import panamax.api.draft.Drafter;
import panamax.api.kv.SpeculativeRounds;
import panamax.api.model.KvState;
import panamax.api.model.LogitSelection;
import panamax.engine.generate.ForwardPass;
import panamax.engine.generate.RowState;

/**
 * One decode step with drafts: asks the drafter for up to each speculating row's budget of tokens
 * ({@link DraftLength}: a fixed K, or a budget that follows what the row's drafts earn), runs every
 * row's newest token and its draft through the target in ONE forward pass (each row padded to the
 * longest draft) with logits for the whole drafted range, accepts per row
 * ({@link DraftVerification}), and rolls each layout back to what each row accepted through a
 * speculative round ({@link SpeculativeRounds#beginRound} / {@link SpeculativeRounds#rollback}).
 * When no row has a draft the step is a plain one-token decode. Borrows everything; used by one thread.
 */
public final class SpeculativeDecoder {
    private final ForwardPass forward;
    private final Drafter drafter;
    private final DraftLength length;
    private final int vocab;
    private final SpeculationStats stats;
    /** Each live row's draft budget, by key; rows absent from a step are forgotten. */
    private Map<Long, Integer> budgets = new HashMap<>();

    /**
     * @param length tokens drafted per row and step
     * @param vocab  rows of the target's logits (draft ids must lie below it)
     */
    public SpeculativeDecoder(ForwardPass forward, Drafter drafter, DraftLength length, int vocab, SpeculationStats stats) {
        this.forward = forward;
        this.drafter = drafter;
        this.length = length;
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
        int[] budget = budgets(rows);
        Draft[] drafts = drafts(rows, budget);
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
            if (length.adaptive() && drafts[i].length() > 0) budgets.put(row.key(), length.next(budget[i], drafts[i].length(), a));
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

    /** Each row's budget this step (a new row starts at the schedule's start); forgets rows that left. */
    private int[] budgets(List<? extends SpeculativeRow> rows) {
        int[] budget = new int[rows.size()];
        if (!length.adaptive()) { // a fixed count keeps no per-row state
            Arrays.fill(budget, length.start());
            return budget;
        }
        Map<Long, Integer> live = new HashMap<>(rows.size() * 2);
        for (int i = 0; i < rows.size(); i++) {
            long key = rows.get(i).key();
            budget[i] = budgets.getOrDefault(key, length.start());
            live.put(key, budget[i]);
        }
        budgets = live;
        return budget;
    }

    /** Per row, its draft cut to its budget and to what the row may still use (one token of every step is the target's own). */
    private Draft[] drafts(List<? extends SpeculativeRow> rows, int[] budget) {
        Draft[] drafts = new Draft[rows.size()];
        List<DraftRow> asks = new ArrayList<>();
        List<Integer> asked = new ArrayList<>();
        int most = 0;
        for (int i = 0; i < rows.size(); i++) {
            drafts[i] = Draft.NONE;
            SpeculativeRow row = rows.get(i);
            RowState s = row.state();
            if (!row.speculates() || Math.min(budget[i], s.remaining() - 1) < 1) continue;
            asks.add(new DraftRow(row.key(), s.history(), s.historyLength(), s.sampler().params().temperature(),
                    s.sampler().params().seed()));
            asked.add(i);
            most = Math.max(most, budget[i]);
        }
        if (asks.isEmpty()) return drafts;
        // one call for every row at the largest budget (a draft model drafts its rows as one batch), then each row's own cut
        List<Draft> got = drafter.draft(asks, most);
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
            drafts[i] = d.truncate(Math.min(budget[i], rows.get(i).state().remaining() - 1));
        }
        return drafts;
    }
}
