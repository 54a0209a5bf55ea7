package panamax.layout.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Tensor;

/**
 * Drives one layout and the reference model side by side through a sequence of {@link LayoutOp}s,
 * checking them against each other after every step. Owns the layouts it creates;
 * {@link #runAndClose} closes them and checks that the backend is back to its baseline. The codec
 * TCK uses it to host a codec in every layout.
 */
public final class LayoutHarness {
    /** An extra check of a layout's storage after each step, given the backend bytes the layout holds. */
    @FunctionalInterface
    public interface StorageCheck {
        void check(KvLayout layout, long heldBytes);
    }

    private final Backend backend;
    private final LayoutSetup setup;
    private final KvLayoutProvider provider;
    private final PluginParams params;
    private final StoredCodec identities = TestCodecs.EXACT;
    private final StorageCheck storageCheck;
    private final long baseline;
    private final long codecBytes;
    private KvLayout layout;
    private List<ReferenceRow> reference = new ArrayList<>();
    private int nextToken = 1;
    private int lastAppend;

    /**
     * @param backend      where the layout stores its planes (borrowed)
     * @param provider     the layout under test
     * @param setup        its case, codec, rows and head dimension
     * @param storageCheck run after every step on the main batch, e.g. to check a layout's internal capacity
     */
    public LayoutHarness(Backend backend, KvLayoutProvider provider, LayoutSetup setup, StorageCheck storageCheck) {
        this.backend = backend;
        this.setup = setup;
        this.provider = provider;
        this.params = PluginParams.of(setup.layout().params()).resolve(provider.id(), provider.capabilities().params());
        this.storageCheck = storageCheck;
        long before = backend.memoryStats().activeBytes();
        this.baseline = before;
        // codecs may own tensors (rotations, codebooks); the batch layout holds exactly one pair of them
        try (var codec = setup.codec().create(codecContext()); var identity = identities.create(codecContext())) {
            this.codecBytes = backend.memoryStats().activeBytes() - before;
        }
        this.layout = newLayout(setup.rows());
        for (int r = 0; r < setup.rows(); r++) reference.add(new ReferenceRow(setup.start() == 0));
    }

    private KvLayout newLayout(int rows) {
        CodecContext context = codecContext();
        return provider.create(params, new LayoutContext(backend, 0, rows, setup.codec().create(context),
                identities.create(context), Tokens.HEADS));
    }

    private CodecContext codecContext() {
        return new CodecContext(backend, 0, Tokens.HEADS, setup.headDim(), DType.F32, 7);
    }

    private void check(KvLayout target, List<ReferenceRow> rows, int appended, long base) {
        LayoutChecks.check(backend, target, rows, setup, provider.capabilities(), appended, base);
        if (base >= 0) storageCheck.check(target, backend.memoryStats().activeBytes() - base);
    }

    private void run(List<LayoutOp> ops) {
        check(layout, reference, 0, baseline + codecBytes);
        for (LayoutOp op : ops) {
            apply(op);
            settleConversions(reference);
            check(layout, reference, lastAppend, baseline + codecBytes);
        }
    }

    private void apply(LayoutOp op) {
        switch (op) {
            case LayoutOp.Append a -> append(layout, reference, a.length());
            case LayoutOp.Prefill p -> prefill(p);
            case LayoutOp.Filter f -> filter(f.seed());
            case LayoutOp.Extract e -> extract(e);
            case LayoutOp.Trim t -> trim(t.n());
            case LayoutOp.Round r -> round(r);
            case LayoutOp.Align a -> align(a.seed());
        }
    }

    private void append(KvLayout target, List<ReferenceRow> rows, int length) {
        int[][] ids = new int[rows.size()][length];
        for (int r = 0; r < rows.size(); r++) {
            for (int t = 0; t < length; t++) {
                ids[r][t] = nextToken++;
                rows.get(r).tokens.add(ids[r][t]);
            }
        }
        write(target, ids);
        lastAppend = length;
    }

    private void write(KvLayout target, int[][] ids) {
        try (Tensor k = Tokens.tensor(backend, ids, Tokens.KEY, setup.headDim());
             Tensor v = Tokens.tensor(backend, ids, Tokens.VALUE, setup.headDim())) {
            target.append(k, v);
        }
    }

    private void prefill(LayoutOp.Prefill p) {
        Random r = new Random(p.seed());
        int n = 1 + Math.floorMod(p.rows(), 3);
        int[] lengths = new int[n];
        int[] left = new int[n];
        int[] right = new int[n];
        int width = 0;
        for (int i = 0; i < n; i++) {
            lengths[i] = 1 + r.nextInt(7);
            left[i] = r.nextInt(3);
            width = Math.max(width, left[i] + lengths[i]);
        }
        width += r.nextInt(2);
        for (int i = 0; i < n; i++) right[i] = width - left[i] - lengths[i];
        List<ReferenceRow> cohortRows = new ArrayList<>();
        for (int i = 0; i < n; i++) cohortRows.add(new ReferenceRow(setup.start() == 0));
        try (KvLayout cohort = newLayout(n)) {
            cohort.preparePrefill(lengths, left, right);
            int chunk = 1 + Math.floorMod(p.chunk(), 4);
            List<Integer> live = new ArrayList<>();
            for (int i = 0; i < n; i++) live.add(i);
            for (int done = 0; done < width; done += chunk) {
                int length = Math.min(chunk, width - done);
                int[] expectedRope = new int[live.size()];
                int[][] ids = new int[live.size()][length];
                for (int k = 0; k < live.size(); k++) {
                    int i = live.get(k);
                    expectedRope[k] = cohortRows.get(i).offset() - Math.max(0, left[i] - done);
                    for (int t = 0; t < length; t++) {
                        int column = done + t;
                        boolean real = column >= left[i] && column < left[i] + lengths[i];
                        ids[k][t] = nextToken++;
                        if (real) cohortRows.get(i).tokens.add(ids[k][t]);
                    }
                }
                assertArrayEquals(expectedRope, cohort.ropeOffsets(), "RoPE offsets inside the prefill");
                write(cohort, ids);
                lastAppend = length;
                if (p.ending() == LayoutOp.Prefill.END_EARLY) break;
                if (p.ending() == LayoutOp.Prefill.LONGEST_LEAVES && done == 0 && live.size() > 1) {
                    // the longest row leaves the cohort; the others finish their own columns
                    int longest = 0;
                    for (int k = 1; k < live.size(); k++) {
                        if (left[live.get(k)] + lengths[live.get(k)] > left[live.get(longest)] + lengths[live.get(longest)]) longest = k;
                    }
                    int[] keep = new int[live.size() - 1];
                    for (int k = 0, m = 0; k < live.size(); k++) if (k != longest) keep[m++] = k;
                    cohort.filterRows(keep);
                    live.remove(longest);
                    width = 0;
                    for (int i : live) width = Math.max(width, left[i] + lengths[i]);
                }
            }
            List<ReferenceRow> remaining = new ArrayList<>();
            for (int i : live) remaining.add(cohortRows.get(i));
            cohortRows = remaining;
            cohort.finalizePrefill();
            settleConversions(cohortRows);
            check(cohort, cohortRows, 1, -1);
            KvLayout merged = layout.merge(List.of(cohort));
            layout.close();
            layout = merged;
        }
        reference.addAll(cohortRows);
        lastAppend = 1;
    }

    private void filter(int seed) {
        Random r = new Random(seed);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < reference.size(); i++) order.add(i);
        Collections.shuffle(order, r);
        int[] keep = order.subList(0, 1 + r.nextInt(order.size())).stream().mapToInt(Integer::intValue).toArray();
        layout.filterRows(keep);
        List<ReferenceRow> kept = new ArrayList<>();
        for (int i : keep) kept.add(reference.get(i));
        reference = kept;
        int[] padding = layout.leftPadding();
        int shared = Integer.MAX_VALUE;
        for (int i = 0; i < padding.length; i++) if (reference.get(i).offset() > 0) shared = Math.min(shared, padding[i]);
        if (shared != Integer.MAX_VALUE) assertEquals(0, shared, "padding shared by every kept row is dropped");
    }

    private void extract(LayoutOp.Extract e) {
        int row = Math.floorMod(e.row(), reference.size());
        KvLayout single = layout.extractRow(row);
        List<ReferenceRow> rows = List.of(reference.get(row).copy());
        assertArrayEquals(new int[] {0}, single.leftPadding(), "an extracted row has no padding");
        if (e.continueWithIt()) {
            layout.close();
            layout = single;
            reference = new ArrayList<>(rows);
        } else {
            check(single, rows, 1, -1);
            single.close();
        }
    }

    private void trim(int n) {
        int wanted = 1 + Math.floorMod(n, 3);
        boolean trimmable = layout.isTrimmable();
        if (setup.window() == 0) assertTrue(trimmable, "a trimmable layout that keeps every token stays trimmable");
        int got = layout.trim(wanted);
        int min = reference.stream().mapToInt(ReferenceRow::offset).min().orElse(0);
        assertEquals(trimmable ? Math.min(wanted, min) : 0, got, "tokens trimmed");
        for (ReferenceRow row : reference) row.dropLast(got);
    }

    private void round(LayoutOp.Round op) {
        int length = 1 + Math.floorMod(op.length(), 3);
        layout.beginRound();
        if (op.singleSteps()) {
            for (int i = 0; i < length; i++) append(layout, reference, 1);
        } else {
            append(layout, reference, length);
        }
        if (op.commit()) {
            layout.commitRound();
            return;
        }
        int[] keep = new int[reference.size()];
        for (int i = 0; i < keep.length; i++) {
            keep[i] = new Random(op.seed() * 31L + i).nextInt(length + 1); // per row, so shrinking other rows keeps it
            reference.get(i).dropLast(length - keep[i]);
        }
        layout.rollback(keep);
        lastAppend = 1;
    }

    private void align(int seed) {
        Random r = new Random(seed);
        int[] pads = new int[reference.size()];
        for (int i = 0; i < pads.length; i++) pads[i] = r.nextInt(3);
        layout.alignRows(pads);
        int[] got = layout.leftPadding();
        for (int i = 0; i < pads.length; i++) {
            if (reference.get(i).offset() > 0) assertEquals(pads[i], got[i], "left padding of row " + i + " after alignRows " + Arrays.toString(pads));
        }
        lastAppend = 1;
    }

    /** A delayed row moves to the codec once its offset reaches start (outside rounds; checked after each op). */
    private void settleConversions(List<ReferenceRow> rows) {
        for (ReferenceRow row : rows) if (row.offset() >= setup.start()) row.converted = true;
    }

    /** Runs the sequence, closes the layout, and checks that every tensor was released. */
    public void runAndClose(List<LayoutOp> ops) {
        try {
            run(ops);
        } finally {
            layout.close();
        }
        assertEquals(baseline, backend.memoryStats().activeBytes(), "backend bytes after closing every layout");
    }
}
