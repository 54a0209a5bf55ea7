package panamax.kv.layouts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvCapture;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.layout.tck.TestCodecs;
import panamax.layout.tck.Tokens;

/**
 * A rotating row reads its tokens in the same column order, and so gets bit-identical attention,
 * alone and after being merged with a padded cohort, filtered to other rows and extracted again,
 * including once its ring has wrapped (attention sums over columns in column order, so a row
 * re-laid in time order would round differently from the same row kept in ring order).
 */
class RingOrderTest {
    private static final int TARGET = 1000;   // the followed row's token at position p has id TARGET + p
    private static final int HEAD_DIM = 32;
    private static Backend backend;

    @BeforeAll
    static void start() {
        backend = Plugins.backend();
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    private static KvLayout rotating(int window, int keep, int rows) {
        KvLayoutProvider provider = Plugins.layout("rotating");
        CodecContext context = new CodecContext(backend, 0, Tokens.HEADS, HEAD_DIM, DType.F32, 7);
        var codec = TestCodecs.EXACT.create(context);
        var params = PluginParams.of(Map.of("window", "" + window, "keep", "" + keep)).resolve("rotating", provider.capabilities().params());
        return provider.create(params, new LayoutContext(backend, 0, rows, codec, null, Tokens.HEADS));
    }

    /** Appends {@code length} tokens per row: the followed row at {@code target} gets its next ids, the others any. */
    private static void append(KvLayout layout, int target, int length) {
        int[][] ids = new int[layout.rows()][length];
        for (int r = 0; r < ids.length; r++) {
            for (int t = 0; t < length; t++) ids[r][t] = r == target ? TARGET + layout.offsets()[r] + t : 7 * r + 31 * t + 3;
        }
        try (Tensor k = Tokens.tensor(backend, ids, Tokens.KEY, HEAD_DIM); Tensor v = Tokens.tensor(backend, ids, Tokens.VALUE, HEAD_DIM)) {
            layout.append(k, v);
        }
    }

    /** The row's positions in column order, padding before the first and after the last token left out. */
    private static int[] order(KvLayout layout, int row) {
        try (KvCapture capture = layout.capture()) {
            int[] p = capture.positions(row);
            int first = 0, last = p.length - 1;
            while (first <= last && p[first] < 0) first++;
            while (last >= first && p[last] < 0) last--;
            return Arrays.copyOfRange(p, first, last + 1);
        }
    }

    /** The attention output of {@code row} for one query, the same query in every row. */
    private static float[] attend(KvLayout layout, int row) {
        int per = Tokens.HEADS * HEAD_DIM;
        float[] q = new float[layout.rows() * per];
        for (int i = 0; i < q.length; i++) q[i] = ((i % per) % 11 - 5) / 3f;
        try (Tensor queries = backend.fromFloats(q, Shape.of(layout.rows(), Tokens.HEADS, 1, HEAD_DIM), DType.F32);
             Tensor out = layout.attend(queries, 0.37)) {
            return Arrays.copyOfRange(backend.toFloats(out), row * per, (row + 1) * per);
        }
    }

    private static void same(KvLayout alone, KvLayout moved, int row, String when) {
        assertEquals(alone.offsets()[0], moved.offsets()[row], when + ": offset");
        assertArrayEquals(order(alone, 0), order(moved, row), when + ": the row's positions in column order");
        float[] a = attend(alone, 0), b = attend(moved, row);
        for (int i = 0; i < a.length; i++) {
            assertEquals(Float.floatToRawIntBits(a[i]), Float.floatToRawIntBits(b[i]), when + ": attention bits at " + i);
        }
    }

    @ParameterizedTest
    @CsvSource({"8, 0, 11, 5", "8, 2, 11, 5", "8, 0, 5, 0", "8, 0, 5, 6", "5, 1, 3, 9"})
    void aRingRowKeepsItsColumnOrderThroughMergeFilterAndExtract(int window, int keep, int prompt, int steps) {
        try (KvLayout alone = rotating(window, keep, 1); KvLayout running = rotating(window, keep, 1)) {
            for (KvLayout l : List.of(alone, running)) {
                append(l, 0, prompt);
                for (int i = 0; i < steps; i++) append(l, 0, 1);
            }
            // a padded cohort: one short prompt and one longer than the window
            KvLayout merged;
            try (KvLayout cohort = rotating(window, keep, 2)) {
                cohort.preparePrefill(new int[] {3, window + 4}, new int[] {window + 1, 0}, new int[] {0, 0});
                append(cohort, -1, window + 4);
                cohort.finalizePrefill();
                merged = running.merge(List.of(cohort));
            }
            try (merged) {
                same(alone, merged, 0, "merged after " + steps + " steps");
                for (int i = 0; i < 3; i++) {
                    append(alone, 0, 1);
                    append(merged, 0, 1);
                    same(alone, merged, 0, "merged, step " + i);
                }
                merged.filterRows(new int[] {2, 0});
                same(alone, merged, 1, "filtered");
                for (int i = 0; i < window + 2; i++) {
                    append(alone, 0, 1);
                    append(merged, 1, 1);
                    same(alone, merged, 1, "filtered, step " + i);
                }
                try (KvLayout single = merged.extractRow(1)) {
                    same(alone, single, 0, "extracted");
                    append(alone, 0, 1);
                    append(single, 0, 1);
                    same(alone, single, 0, "extracted, one step on");
                }
            }
        }
    }
}
