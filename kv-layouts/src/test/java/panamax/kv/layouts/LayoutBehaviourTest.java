package panamax.kv.layouts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvCapture;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.layout.tck.StoredCodec;
import panamax.layout.tck.TestCodecs;
import panamax.layout.tck.Tokens;

/** Worked examples of the contract, one behaviour each; the properties cover the general case. */
class LayoutBehaviourTest {
    private static final int HEAD_DIM = 32;
    private static Backend backend;
    private int nextToken = 1;

    @BeforeAll
    static void start() {
        backend = Plugins.backend();
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    private static KvLayout layout(String id, Map<String, String> params, StoredCodec codec, int rows) {
        KvLayoutProvider provider = Plugins.layout(id);
        CodecContext context = new CodecContext(backend, 0, Tokens.HEADS, HEAD_DIM, DType.F32, 7);
        return provider.create(PluginParams.of(params).resolve(id, provider.capabilities().params()),
                new LayoutContext(backend, 0, rows, codec.create(context), TestCodecs.EXACT.create(context), Tokens.HEADS));
    }

    private static long bytesPerTokenPerHead(StoredCodec codec) {
        return codec.provider().shape(codec.resolved(), HEAD_DIM, DType.F32).bytesPerTokenPerHead();
    }

    private void append(KvLayout layout, int length) {
        int[][] ids = new int[layout.rows()][length];
        for (int[] row : ids) for (int t = 0; t < length; t++) row[t] = nextToken++;
        try (Tensor k = Tokens.tensor(backend, ids, Tokens.KEY, HEAD_DIM); Tensor v = Tokens.tensor(backend, ids, Tokens.VALUE, HEAD_DIM)) {
            layout.append(k, v);
        }
    }

    private static float[] attend(KvLayout layout, float[] q, int length) {
        try (Tensor queries = backend.fromFloats(q, Shape.of(layout.rows(), Tokens.HEADS, length, HEAD_DIM), DType.F32);
             Tensor out = layout.attend(queries, 0.25)) {
            return backend.toFloats(out);
        }
    }

    @Test
    void alignedUnpaddedRowsNeedNoMaskArray() {
        try (KvLayout full = layout("full", Map.of(), TestCodecs.EXACT, 2);
             KvLayout sliding = layout("rotating", Map.of("window", "4"), TestCodecs.EXACT, 2)) {
            append(full, 3);
            append(sliding, 3);
            assertEquals(AttentionMask.CAUSAL, full.mask(3));
            assertEquals(new AttentionMask.Causal(4), sliding.mask(3));
        }
    }

    @Test
    void leftPaddedRowsGetAnExplicitBoolMask() {
        try (KvLayout layout = layout("full", Map.of(), TestCodecs.EXACT, 2)) {
            layout.preparePrefill(new int[] {3, 1}, new int[] {0, 2}, new int[] {0, 0});
            assertArrayEquals(new int[] {0, -2}, layout.ropeOffsets(), "padding takes the positions before the first token");
            append(layout, 3);
            layout.finalizePrefill();
            assertArrayEquals(new int[] {0, 2}, layout.leftPadding());
            AttentionMask mask = layout.mask(1);
            Tensor bits = assertInstanceOf(AttentionMask.Explicit.class, mask).mask();
            try (bits) {
                assertEquals(DType.BOOL, bits.dtype());
                assertArrayEquals(new int[] {1, 1, 1, 0, 0, 1}, backend.toInts(bits));
            }
        }
    }

    @Test
    void storageGrowsIn256TokenSteps() {
        try (KvLayout layout = layout("full", Map.of(), TestCodecs.LOSSY, 2)) {
            BatchLayout impl = (BatchLayout) layout;
            append(layout, 1);
            assertEquals(256 * layout.bytesPerToken(), impl.storedBytes());
            append(layout, 255);
            assertEquals(256 * layout.bytesPerToken(), impl.storedBytes());
            append(layout, 1);
            assertEquals(512 * layout.bytesPerToken(), impl.storedBytes());
            assertEquals(512 * layout.bytesPerToken(), layout.projectedBytes(257));
        }
    }

    @Test
    void aRotatingLayoutHoldsItsWindowAndStopsBeingTrimmableOnceItWraps() {
        try (KvLayout layout = layout("rotating", Map.of("window", "8", "keep", "2"), TestCodecs.EXACT, 1)) {
            BatchLayout impl = (BatchLayout) layout;
            for (int i = 0; i < 8; i++) append(layout, 1);
            assertTrue(layout.isTrimmable());
            append(layout, 1);
            assertFalse(layout.isTrimmable());
            assertEquals(0, layout.trim(1));
            for (int i = 0; i < 20; i++) append(layout, 1);
            assertEquals(8 * layout.bytesPerToken(), impl.storedBytes(), "the ring never grows past the window");
            assertEquals(8 * layout.bytesPerToken(), layout.projectedBytes(1_000_000));
            try (KvCapture capture = layout.capture()) {
                int[] kept = java.util.Arrays.stream(capture.positions(0)).sorted().toArray();
                assertArrayEquals(new int[] {0, 1, 23, 24, 25, 26, 27, 28}, kept, "two sinks and the six most recent");
            }
        }
    }

    @Test
    void rollingBackAfterTheRingWrappedGivesTheSameAttentionAsNeverAppending() {
        float[] q = new float[Tokens.HEADS * HEAD_DIM];
        for (int i = 0; i < q.length; i++) q[i] = (i % 7 - 3) / 8f;
        try (KvLayout speculative = layout("rotating", Map.of("window", "4"), TestCodecs.EXACT, 1);
             KvLayout plain = layout("rotating", Map.of("window", "4"), TestCodecs.EXACT, 1)) {
            for (int i = 0; i < 10; i++) append(speculative, 1);
            nextToken -= 10;
            for (int i = 0; i < 10; i++) append(plain, 1);
            speculative.beginRound();
            append(speculative, 3);
            speculative.rollback(new int[] {0});
            assertArrayEquals(plain.offsets(), speculative.offsets());
            assertArrayEquals(attend(plain, q, 1), attend(speculative, q, 1), 1e-6f);
            assertThrows(IllegalArgumentException.class, () -> {
                speculative.beginRound();
                speculative.rollback(new int[] {1});
            }, "keeping more than the round appended is refused");
        }
    }

    @Test
    void delayedRowsMoveToTheCodecWhenTheirOwnOffsetReachesStart() {
        try (KvLayout layout = layout("delayed", Map.of("start", "4"), TestCodecs.LOSSY, 2)) {
            long identity = bytesPerTokenPerHead(TestCodecs.EXACT) * Tokens.HEADS * 2;
            long codec = bytesPerTokenPerHead(TestCodecs.LOSSY) * Tokens.HEADS * 2;
            layout.preparePrefill(new int[] {2, 5}, new int[] {0, 0}, new int[] {3, 0});
            append(layout, 5);
            layout.finalizePrefill();
            assertEquals(identity + codec, layout.bytesPerToken(), "one row converted: both precisions are held");
            append(layout, 1);
            append(layout, 1);
            assertEquals(codec, layout.bytesPerToken(), "every row converted: only the codec's planes are left");
        }
    }

    @Test
    void aCaptureLetsALaterLayerAttendOverTheDonorWithoutCopying() {
        float[] q = new float[2 * Tokens.HEADS * 2 * HEAD_DIM];
        for (int i = 0; i < q.length; i++) q[i] = (i % 5 - 2) / 4f;
        try (KvLayout donor = layout("full", Map.of(), TestCodecs.LOSSY, 2)) {
            append(donor, 5);
            float[] direct = attend(donor, q, 2);
            long before = backend.memoryStats().activeBytes();
            try (KvCapture capture = donor.capture()) {
                assertEquals(before, backend.memoryStats().activeBytes(), "a capture holds views, not copies");
                append(donor, 1);
                try (Tensor queries = backend.fromFloats(q, Shape.of(2, Tokens.HEADS, 2, HEAD_DIM), DType.F32);
                     Tensor out = capture.attend(queries, 0.25)) {
                    assertArrayEquals(direct, backend.toFloats(out), 1e-6f, "the capture still shows the donor as captured");
                }
            }
        }
    }

    @Test
    void appendsWriteInPlaceAgainOnceTheCaptureIsClosed() {
        try (KvLayout layout = layout("full", Map.of(), TestCodecs.EXACT, 1)) {
            BatchLayout donor = (BatchLayout) layout;
            append(layout, 3);
            Tensor planes = donor.target.current().keys().getFirst();
            try (KvCapture capture = layout.capture()) {
                append(layout, 1);
                assertTrue(planes != donor.target.current().keys().getFirst(), "an open capture makes the next append copy the planes");
            }
            planes = donor.target.current().keys().getFirst();
            try (KvCapture capture = layout.capture()) {
                assertEquals(4, capture.columns());
            }
            append(layout, 1);
            append(layout, 1);
            assertTrue(planes == donor.target.current().keys().getFirst(),
                    "with every capture closed, appends write into the same planes (a donor is captured every step)");
        }
    }
}
