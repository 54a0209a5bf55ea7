package panamax.layout.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import panamax.api.kv.KvCapture;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.ReconstructionBound;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * What must hold between a layout and the reference after every step: offsets and padding, the
 * logical tokens (exact for identity rows, within the codec's bound otherwise), the mask as the set
 * of positions each query sees, attention against a plain-Java softmax, byte accounting. Token and
 * position checks read the layout through {@link KvLayout#capture()}, so they need {@code capturable};
 * without it, attention is checked against the reference tokens for exact codecs only.
 */
final class LayoutChecks {
    private LayoutChecks() {
    }

    /**
     * @param lastAppend tokens of the last append step (query lengths a bounded layout must serve), 0 before any
     * @param baseline   backend bytes with only the layout's codecs alive, or -1 when other layouts are alive
     */
    static void check(Backend backend, KvLayout layout, List<ReferenceRow> reference, LayoutSetup setup,
                      LayoutCapabilities caps, int lastAppend, long baseline) {
        int rows = reference.size();
        assertEquals(rows, layout.rows(), "rows");
        int[] offsets = reference.stream().mapToInt(ReferenceRow::offset).toArray();
        assertArrayEquals(offsets, layout.offsets(), "offsets");
        assertArrayEquals(offsets, layout.ropeOffsets(), "RoPE offsets outside a prefill");
        int[] padding = layout.leftPadding();
        assertEquals(rows, padding.length, "left padding entries");
        for (int r = 0; r < rows; r++) assertTrue(padding[r] >= 0, "left padding of row " + r + " is " + padding[r]);
        Random random = new Random(31L * rows + Arrays.hashCode(offsets));
        int maxOffset = 0;
        for (int o : offsets) maxOffset = Math.max(maxOffset, o);
        int[] lengths = setup.window() > 0
                ? new int[] {1, Math.max(1, lastAppend)}
                : new int[] {1, 1 + random.nextInt(maxOffset + 2)};
        if (caps.capturable()) {
            try (KvCapture capture = layout.capture()) {
                assertEquals(rows, capture.rows(), "captured rows");
                int[][] positions = new int[rows][];
                for (int r = 0; r < rows; r++) {
                    positions[r] = capture.positions(r);
                    assertEquals(capture.columns(), positions[r].length, "positions of row " + r);
                    checkRowPositions(r, positions[r], offsets[r], padding[r]);
                }
                float[][] decoded = tokens(backend, capture, reference, setup, positions);
                for (int t : lengths) {
                    checkMask(backend, layout, reference, setup, positions, capture.columns(), t);
                    checkAttention(backend, layout, capture, positions, decoded, setup, capture.columns(), t, random);
                }
            }
        } else if (setup.codec().bound().equals(ReconstructionBound.exact())) {
            for (int t : lengths) checkAttentionOnReference(backend, layout, reference, setup, t, random);
        }
        checkBytes(backend, layout, reference, setup, baseline);
    }

    private static void checkRowPositions(int row, int[] positions, int offset, int padding) {
        BitSet seen = new BitSet();
        int first = -1;
        for (int c = 0; c < positions.length; c++) {
            int p = positions[c];
            if (p < 0) continue;
            if (first < 0) first = c;
            assertTrue(p < offset, "row " + row + " column " + c + " holds position " + p + " beyond offset " + offset);
            assertTrue(!seen.get(p), "row " + row + " holds position " + p + " twice");
            seen.set(p);
        }
        if (first >= 0) assertEquals(first, padding, "left padding of row " + row);
    }

    /** Decodes keys and values and compares every stored token with the reference; returns [K|V] floats. */
    private static float[][] tokens(Backend backend, KvCapture capture, List<ReferenceRow> reference, LayoutSetup setup,
                                    int[][] positions) {
        int columns = capture.columns();
        if (columns == 0) return new float[][] {new float[0], new float[0]};
        float[][] out = new float[2][];
        for (int role = 0; role < 2; role++) {
            try (Tensor t = capture.decode(role == 0 ? KvRole.KEY : KvRole.VALUE)) {
                assertEquals(Shape.of(reference.size(), Tokens.HEADS, columns, setup.headDim()), t.shape(), "decoded shape");
                out[role] = backend.toFloats(t);
            }
            for (int r = 0; r < reference.size(); r++) {
                ReferenceRow row = reference.get(r);
                ReconstructionBound bound = row.converted ? setup.codec().bound() : ReconstructionBound.exact();
                KvRole kvRole = role == 0 ? KvRole.KEY : KvRole.VALUE;
                for (int c = 0; c < columns; c++) {
                    int p = positions[r][c];
                    if (p < 0) continue;
                    for (int h = 0; h < Tokens.HEADS; h++) {
                        float[] want = Tokens.vector(row.tokens.get(p), role, h, setup.headDim());
                        int base = ((r * Tokens.HEADS + h) * columns + c) * setup.headDim();
                        double err = 0;
                        double norm = 0;
                        for (int d = 0; d < setup.headDim(); d++) {
                            double diff = out[role][base + d] - want[d];
                            err += diff * diff;
                            norm += want[d] * (double) want[d];
                        }
                        double allowed = bound.allowedError(kvRole, Math.sqrt(norm), setup.headDim()) + 1e-6 * Math.sqrt(norm);
                        if (Math.sqrt(err) > allowed) {
                            fail((role == 0 ? "key" : "value") + " of row " + r + " position " + p + " head " + h
                                    + ": error " + Math.sqrt(err) + " (norm " + Math.sqrt(norm) + ") above " + allowed
                                    + (row.converted ? " (" + setup.codec() + ", " + bound + ")" : " (identity)"));
                        }
                    }
                }
            }
        }
        return out;
    }

    /** The mask, read as positions, must show each query exactly the reference's visible positions. */
    private static void checkMask(Backend backend, KvLayout layout, List<ReferenceRow> reference, LayoutSetup setup,
                                  int[][] positions, int columns, int queryLength) {
        boolean[][][] mask = materialize(backend, layout.mask(queryLength), reference.size(), queryLength, columns);
        for (int r = 0; r < reference.size(); r++) {
            int offset = reference.get(r).offset();
            for (int i = 0; i < queryLength; i++) {
                int q = offset - queryLength + i;
                BitSet got = new BitSet();
                for (int c = 0; c < columns; c++) {
                    if (!mask[r][i][c]) continue;
                    assertTrue(positions[r][c] >= 0, "row " + r + " query " + i + " of " + queryLength + " sees padding column " + c);
                    got.set(positions[r][c]);
                }
                BitSet want = new BitSet();
                for (int p = 0; p < offset; p++) if (setup.visible(p, q)) want.set(p);
                assertEquals(want, got, "positions row " + r + " query " + i + " of " + queryLength + " (at " + q + ") sees");
            }
        }
    }

    static boolean[][][] materialize(Backend backend, AttentionMask mask, int rows, int queries, int keys) {
        boolean[][][] out = new boolean[rows][queries][keys];
        switch (mask) {
            case AttentionMask.None n -> {
                for (boolean[][] a : out) for (boolean[] b : a) java.util.Arrays.fill(b, true);
            }
            case AttentionMask.Causal c -> {
                for (int r = 0; r < rows; r++) {
                    for (int i = 0; i < queries; i++) {
                        for (int j = 0; j < keys; j++) {
                            int last = keys - queries + i;
                            out[r][i][j] = j <= last && (c.window() == 0 || j > last - c.window());
                        }
                    }
                }
            }
            case AttentionMask.Explicit e -> {
                try (Tensor t = e.mask()) {
                    assertEquals(DType.BOOL, t.dtype(), "explicit mask dtype");
                    assertEquals(Shape.of(rows, 1, queries, keys), t.shape(), "explicit mask shape");
                    int[] bits = backend.toInts(t);
                    for (int r = 0; r < rows; r++) {
                        for (int i = 0; i < queries; i++) {
                            for (int j = 0; j < keys; j++) out[r][i][j] = bits[(r * queries + i) * keys + j] != 0;
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Attention through the layout equals a plain softmax over the decoded tokens its rule makes visible. */
    /** {@code capture} is the layout's open capture, or null when it declares none. */
    private static void checkAttention(Backend backend, KvLayout layout, KvCapture capture, int[][] positions, float[][] decoded,
                                       LayoutSetup setup, int columns, int queryLength, Random random) {
        int rows = positions.length;
        int heads = 2 * Tokens.HEADS;
        int dim = setup.headDim();
        float[] q = new float[rows * heads * queryLength * dim];
        for (int i = 0; i < q.length; i++) q[i] = (random.nextInt(129) - 64) / 64f;
        double scale = 1 / Math.sqrt(dim);
        float[] got;
        try (Tensor queries = backend.fromFloats(q, Shape.of(rows, heads, queryLength, dim), DType.F32);
             Tensor out = layout.attend(queries, scale)) {
            assertEquals(queries.shape(), out.shape(), "attention output shape");
            got = backend.toFloats(out);
            if (capture != null) {
                // a KV-sharing layer (a borrower) attends through the donor's capture: it must see exactly what the donor sees
                try (Tensor borrowed = capture.attend(queries, scale)) {
                    assertArrayEquals(got, backend.toFloats(borrowed), "a borrower's attention through the capture differs from the donor's");
                }
            }
        }
        int[] offsets = layout.offsets();
        for (int r = 0; r < rows; r++) {
            for (int h = 0; h < heads; h++) {
                int kv = h / (heads / Tokens.HEADS);
                for (int i = 0; i < queryLength; i++) {
                    int qPos = offsets[r] - queryLength + i;
                    int qBase = ((r * heads + h) * queryLength + i) * dim;
                    double[] scores = new double[columns];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int c = 0; c < columns; c++) {
                        if (!setup.visible(positions[r][c], qPos)) continue;
                        int kBase = ((r * Tokens.HEADS + kv) * columns + c) * dim;
                        double s = 0;
                        for (int d = 0; d < dim; d++) s += q[qBase + d] * (double) decoded[0][kBase + d];
                        scores[c] = s * scale;
                        max = Math.max(max, scores[c]);
                    }
                    double[] want = new double[dim];
                    if (max > Double.NEGATIVE_INFINITY) {
                        double total = 0;
                        for (int c = 0; c < columns; c++) {
                            if (!setup.visible(positions[r][c], qPos)) continue;
                            double w = Math.exp(scores[c] - max);
                            total += w;
                            int vBase = ((r * Tokens.HEADS + kv) * columns + c) * dim;
                            for (int d = 0; d < dim; d++) want[d] += w * decoded[1][vBase + d];
                        }
                        for (int d = 0; d < dim; d++) want[d] /= total;
                    }
                    for (int d = 0; d < dim; d++) {
                        double diff = Math.abs(got[qBase + d] - want[d]);
                        if (diff > 2e-3 + 2e-3 * Math.abs(want[d])) {
                            fail("attention row " + r + " head " + h + " query " + i + " of " + queryLength + " feature " + d
                                    + ": got " + got[qBase + d] + ", want " + want[d]);
                        }
                    }
                }
            }
        }
    }

    /** Attention through the layout equals a plain softmax over the reference tokens its rule makes visible (exact codecs). */
    private static void checkAttentionOnReference(Backend backend, KvLayout layout, List<ReferenceRow> reference,
                                                  LayoutSetup setup, int queryLength, Random random) {
        int rows = reference.size();
        int maxOffset = reference.stream().mapToInt(ReferenceRow::offset).max().orElse(0);
        if (maxOffset == 0) return;
        int[][] positions = new int[rows][maxOffset];
        int dim = setup.headDim();
        float[][] decoded = {new float[rows * Tokens.HEADS * maxOffset * dim], new float[rows * Tokens.HEADS * maxOffset * dim]};
        for (int r = 0; r < rows; r++) {
            ReferenceRow row = reference.get(r);
            for (int p = 0; p < maxOffset; p++) {
                positions[r][p] = p < row.offset() ? p : -1;
                if (p >= row.offset()) continue;
                for (int role = 0; role < 2; role++) {
                    for (int h = 0; h < Tokens.HEADS; h++) {
                        System.arraycopy(Tokens.vector(row.tokens.get(p), role, h, dim), 0, decoded[role],
                                ((r * Tokens.HEADS + h) * maxOffset + p) * dim, dim);
                    }
                }
            }
        }
        checkAttention(backend, layout, null, positions, decoded, setup, maxOffset, queryLength, random);
    }

    /**
     * bytesPerToken follows the codecs the rows live in; the backend bytes the layout holds are a
     * whole number of tokens of that size, at least the tokens each row's next query sees.
     */
    private static void checkBytes(Backend backend, KvLayout layout, List<ReferenceRow> reference, LayoutSetup setup,
                                   long baseline) {
        StoredCodec codec = setup.codec();
        long codecBytes = codec.provider().shape(codec.resolved(), setup.headDim(), DType.F32).bytesPerTokenPerHead();
        long identityBytes = TestCodecs.EXACT.provider().shape(TestCodecs.EXACT.resolved(), setup.headDim(), DType.F32)
                .bytesPerTokenPerHead();
        boolean anyConverted = reference.stream().anyMatch(r -> r.converted);
        boolean anyIdentity = reference.stream().anyMatch(r -> !r.converted);
        long perToken = (long) reference.size() * Tokens.HEADS
                * ((anyConverted ? codecBytes : 0) + (anyIdentity ? identityBytes : 0));
        assertEquals(perToken, layout.bytesPerToken(), "bytes per token for " + reference);
        if (baseline < 0) return;
        long held = backend.memoryStats().activeBytes() - baseline;
        assertTrue(held >= 0, "the layout holds " + held + " bytes");
        if (perToken == 0) return;
        assertEquals(0, held % perToken, "backend bytes held by the layout (" + held + ") are whole tokens of " + perToken + " bytes");
        int needed = 0;
        for (ReferenceRow row : reference) {
            int visible = 0;
            for (int p = 0; p < row.offset(); p++) if (setup.visible(p, row.offset())) visible++;
            needed = Math.max(needed, visible);
        }
        assertTrue(held / perToken >= needed, "the layout holds " + held / perToken + " tokens per row, fewer than the "
                + needed + " the next query sees");
    }
}
