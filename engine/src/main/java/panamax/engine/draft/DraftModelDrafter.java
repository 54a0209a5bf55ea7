package panamax.engine.draft;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import panamax.api.draft.Draft;
import panamax.api.draft.DraftModel;
import panamax.api.draft.DraftRow;
import panamax.api.draft.Drafter;
import panamax.api.draft.RowCaches;
import panamax.api.model.LogitSelection;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Drafts with a second model on KV caches of its own, one batch for every row it drafts for.
 * Between calls the caches stay inside a speculative round holding each row's history up to its
 * newest token and its last draft; the next call learns from the rows' histories how much of that
 * the target accepted, rolls every row back to its history minus the last two tokens, and feeds
 * those two (so all rows advance by the same count), then K − 1 single-token steps. Rows it has not
 * seen are prefilled as a left-padded cohort and merged in; rows missing from a call are dropped.
 * Greedy rows draft the argmax; sampling rows draw from the draft model's softmax at the row's
 * temperature and report that distribution. Owns its caches; borrows the model.
 */
final class DraftModelDrafter implements Drafter {
    private static final int PREFILL_CHUNK = 512;

    private final DraftModel model;
    private RowCaches caches;                  // null while no row is held; else inside an open round
    private final List<Long> keys = new ArrayList<>();            // the caches' rows, in order
    private final List<int[]> appended = new ArrayList<>();       // per row: the ids fed in the open round
    private final List<Integer> base = new ArrayList<>();         // per row: ids cached before the round
    private final Map<Long, SplittableRandom> randoms = new HashMap<>();

    DraftModelDrafter(DraftModel model) {
        this.model = model;
    }

    @Override
    public List<Draft> draft(List<DraftRow> rows, int k) {
        Map<Long, DraftRow> byKey = new HashMap<>();
        for (DraftRow r : rows) byKey.put(r.key(), r);
        closeRound(byKey);
        admit(rows);
        randoms.keySet().retainAll(byKey.keySet());
        List<Draft> out = new ArrayList<>(rows.size());
        if (caches == null) {
            for (int i = 0; i < rows.size(); i++) out.add(Draft.NONE);
            return out;
        }
        int n = keys.size();
        DraftRow[] ordered = new DraftRow[n];
        for (int i = 0; i < n; i++) ordered[i] = byKey.get(keys.get(i));
        caches.beginRound();
        int[] feed = new int[2 * n];
        for (int i = 0; i < n; i++) {
            feed[2 * i] = ordered[i].tokens()[ordered[i].length() - 2];
            feed[2 * i + 1] = ordered[i].tokens()[ordered[i].length() - 1];
            base.set(i, ordered[i].length() - 2);
        }
        int[][] drafted = new int[n][k];
        float[][][] probabilities = new float[n][][];
        float[] logits = forward(feed, n, 2);
        for (int step = 0; step < k; step++) {
            int vocab = logits.length / n;
            int[] next = new int[n];
            for (int i = 0; i < n; i++) {
                DraftRow row = ordered[i];
                if (row.temperature() == 0) {
                    next[i] = argmax(logits, i * vocab, vocab);
                } else {
                    if (probabilities[i] == null) probabilities[i] = new float[k][];
                    float[] q = softmax(logits, i * vocab, vocab, row.temperature());
                    probabilities[i][step] = q;
                    next[i] = drawn(q, randoms.computeIfAbsent(row.key(), key -> new SplittableRandom(row.seed() ^ 0xD1B54A32D192ED03L)));
                }
                drafted[i][step] = next[i];
            }
            if (step + 1 < k) logits = forward(next, n, 1);
        }
        for (int i = 0; i < n; i++) {
            int[] fed = new int[k + 1]; // the two history ids, then every draft but the last
            fed[0] = feed[2 * i];
            fed[1] = feed[2 * i + 1];
            System.arraycopy(drafted[i], 0, fed, 2, k - 1);
            appended.set(i, fed);
        }
        Map<Long, Draft> byRow = new HashMap<>();
        for (int i = 0; i < n; i++) byRow.put(keys.get(i), new Draft(drafted[i], probabilities[i]));
        for (DraftRow r : rows) out.add(byRow.getOrDefault(r.key(), Draft.NONE));
        return out;
    }

    /**
     * Ends the open round: every row still asked for keeps what its history confirms, up to its
     * history minus the last two ids; rows gone, or whose cache cannot be brought there, leave.
     */
    private void closeRound(Map<Long, DraftRow> rows) {
        if (caches == null) return;
        int n = keys.size();
        int[] keep = new int[n];
        List<Integer> stay = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            DraftRow row = rows.get(keys.get(i));
            if (row == null) continue;
            int[] fed = appended.get(i);
            int from = base.get(i);
            int matched = 0;
            while (matched < fed.length && from + matched < row.length() && fed[matched] == row.tokens()[from + matched]) matched++;
            int wanted = row.length() - 2 - from;
            if (wanted >= 0 && wanted <= matched) {
                keep[i] = wanted;
                stay.add(i);
            }
        }
        caches.rollback(keep);
        if (stay.isEmpty()) {
            dropAll();
            return;
        }
        if (stay.size() < n) {
            caches.filterRows(stay.stream().mapToInt(Integer::intValue).toArray());
            List<Long> k = new ArrayList<>();
            List<int[]> a = new ArrayList<>();
            List<Integer> b = new ArrayList<>();
            for (int i : stay) {
                k.add(keys.get(i));
                a.add(appended.get(i));
                b.add(base.get(i) + keep[i]);
            }
            keys.clear();
            keys.addAll(k);
            appended.clear();
            appended.addAll(a);
            base.clear();
            base.addAll(b);
        } else {
            for (int i = 0; i < n; i++) base.set(i, base.get(i) + keep[i]);
        }
    }

    /** Prefills rows not held yet (with at least three ids: two are fed by the draft step) and merges them in. */
    private void admit(List<DraftRow> rows) {
        List<DraftRow> fresh = new ArrayList<>();
        for (DraftRow r : rows) if (!keys.contains(r.key()) && r.length() >= 3) fresh.add(r);
        if (fresh.isEmpty()) return;
        int n = fresh.size();
        int width = 0;
        int[] lengths = new int[n];
        for (int i = 0; i < n; i++) {
            lengths[i] = fresh.get(i).length() - 2;
            width = Math.max(width, lengths[i]);
        }
        RowCaches cohort = model.openCaches(n);
        try {
            int[] left = new int[n];
            for (int i = 0; i < n; i++) left[i] = width - lengths[i];
            // planned even without padding, as Generator's prefill: a last chunk of one column attends in time order too
            cohort.preparePrefill(lengths, left, new int[n]);
            for (int from = 0; from < width; from += PREFILL_CHUNK) {
                int cols = Math.min(PREFILL_CHUNK, width - from);
                int[] ids = new int[n * cols];
                for (int i = 0; i < n; i++) {
                    for (int c = 0; c < cols; c++) {
                        int at = from + c - left[i];
                        ids[i * cols + c] = at < 0 ? 0 : fresh.get(i).tokens()[at];
                    }
                }
                forwardInto(cohort, ids, n, cols);
            }
            cohort.finalizePrefill();
            if (caches == null) {
                caches = cohort;
                cohort = null;
            } else {
                caches.mergeIn(cohort);
            }
        } finally {
            if (cohort != null) cohort.close();
        }
        for (int i = 0; i < n; i++) {
            keys.add(fresh.get(i).key());
            appended.add(new int[0]);
            base.add(lengths[i]);
        }
    }

    private float[] forward(int[] ids, int rows, int columns) {
        try (Tensor input = model.backend().fromInts(ids, Shape.of(rows, columns), DType.I32);
             Tensor hidden = model.graph().forwardHidden(input, caches);
             Tensor logits = model.graph().projectLogits(hidden, LogitSelection.LAST)) {
            return model.backend().toFloats(logits);
        }
    }

    private void forwardInto(RowCaches target, int[] ids, int rows, int columns) {
        try (Tensor input = model.backend().fromInts(ids, Shape.of(rows, columns), DType.I32);
             Tensor hidden = model.graph().forwardHidden(input, target)) {
            // only the keys and values are wanted
        }
    }

    private static int argmax(float[] logits, int from, int vocab) {
        int best = from;
        for (int i = from + 1; i < from + vocab; i++) if (logits[i] > logits[best]) best = i;
        return best - from;
    }

    /** softmax(logits / temperature) in double, stored as floats. */
    private static float[] softmax(float[] logits, int from, int vocab, double temperature) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = from; i < from + vocab; i++) max = Math.max(max, logits[i]);
        double[] e = new double[vocab];
        double total = 0;
        for (int i = 0; i < vocab; i++) {
            e[i] = Math.exp((logits[from + i] - max) / temperature);
            total += e[i];
        }
        float[] q = new float[vocab];
        for (int i = 0; i < vocab; i++) q[i] = (float) (e[i] / total);
        return q;
    }

    /** A draw from q; never a zero-probability id. */
    private static int drawn(float[] q, SplittableRandom random) {
        double u = random.nextDouble(), cumulative = 0;
        int last = -1;
        for (int i = 0; i < q.length; i++) {
            if (q[i] == 0) continue;
            cumulative += q[i];
            last = i;
            if (u < cumulative) return i;
        }
        return last;
    }

    private void dropAll() {
        if (caches != null) caches.close();
        caches = null;
        keys.clear();
        appended.clear();
        base.clear();
    }

    @Override
    public void close() {
        dropAll();
        randoms.clear();
    }
}
