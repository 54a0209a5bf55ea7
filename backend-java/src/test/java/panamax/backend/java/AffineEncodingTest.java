package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import jdk.incubator.vector.IntVector;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.AffineEncoding;
import panamax.backend.java.kernel.AffineVectors;
import panamax.backend.java.kernel.Floats;
import panamax.backend.java.kernel.CodebookEncoding;
import panamax.backend.java.kernel.CodebookVectors;

/**
 * The fused encoders agree bit for bit with their scalar twins: {@link AffineEncoding#quantize}
 * with {@link AffineCodes#quantizeRow} + {@link AffineCodes#packRow} (including NaN, infinities,
 * signed zeros, constant and tiny-range groups), {@link AffineEncoding#pack} with
 * {@link AffineCodes#packRow} at every width 1 to 8, and the codebook boundary search with the
 * boundary count; and the bf16 dequantize (table look-ups at 2 and 4 bits, straight arithmetic
 * otherwise) with MLX's formula at every group size and first-code offset; the codebook row look-ups
 * straight from bytes with unpacking first.
 */
class AffineEncodingTest {
    private static final int[] WIDTHS = {2, 3, 4, 5, 6, 8};
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private final Random random = new Random(11);

    /** Gaussian rows with, every few groups, one of the cases that take special paths. */
    private float[] values(int n, int group, boolean special) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) (random.nextGaussian() * (i % 97 == 0 ? 40 : 1));
        for (int g = 0; g < n / group; g++) {
            int at = g * group;
            switch (g % 9) {
                case 1 -> v[at + 3] = special ? Float.NaN : -7.5f;
                case 2 -> v[at + 5] = special ? Float.POSITIVE_INFINITY : 1e30f;
                case 3 -> Arrays.fill(v, at, at + group, 2.5f);                 // constant group
                case 4 -> { for (int i = at; i < at + group; i++) v[i] = i % 2 == 0 ? 0f : -0f; }
                case 5 -> { for (int i = at; i < at + group; i++) v[i] = 1000f + (i % 3) * 1e-4f; } // range below 1e-7·bins
                case 6 -> v[at + group - 1] = special ? Float.NEGATIVE_INFINITY : -3e37f;
                default -> { }
            }
        }
        return v;
    }

    /** A fused encoder under test: writes scales, biases (padded arrays) and packed codes of the row {@code w}. */
    @FunctionalInterface
    private interface Encoder {
        void encode(float[] w, int n, int group, int bits, int padded, float[] scales, float[] biases, MemorySegment packed);
    }

    @Test
    void fusedQuantizeMatchesTheScalarTwinBitForBit() {
        VectorWidth.requirePath(AffineEncoding.supported(), "the fused affine encoder (AffineEncoding.quantize)", 256, 512);
        matchesTheScalarTwin(false, true, (w, n, group, bits, padded, gs, gb, got) ->
                AffineEncoding.quantize(w, n, group, bits, new float[padded], new float[padded], gs, gb, got, 0));
    }

    @Test
    void bf16QuantizeMatchesTheScalarTwinBitForBit() {
        VectorWidth.requirePath(AffineEncoding.quantizesBf16(64), "the bf16 affine encoder (AffineEncoding.quantizeBf16)", 512);
        // finite rows take the bf16 kernel itself; rows with a NaN or an infinity are refused (false) and nothing written
        for (boolean special : new boolean[] {false, true}) {
            matchesTheScalarTwin(true, special, (w, n, group, bits, padded, gs, gb, got) -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment src = arena.allocate(2L * n + 6);
                    for (int i = 0; i < n; i++) src.setAtIndex(I16, 3 + i, Floats.floatToBf16(w[i])); // exact: w is bf16-rounded
                    float[] mins = new float[AffineEncoding.bf16Scratch(n, group)];
                    float[] maxs = new float[mins.length];
                    MemorySegment before = arena.allocate(got.byteSize()).copyFrom(got);
                    boolean encoded = AffineEncoding.quantizeBf16(src, 6, n, group, bits, new float[n], mins, maxs, gs, gb, got, 0);
                    assertEquals(!special, encoded, "bf16 kernel took the row, special values: " + special);
                    if (!encoded) {
                        assertEquals(-1, before.mismatch(got), "a refused row leaves the codes alone");
                        float[] widened = new float[n];
                        for (int i = 0; i < n; i++) widened[i] = Floats.bf16ToFloat(src.getAtIndex(I16, 3 + i));
                        AffineEncoding.quantize(widened, n, group, bits, new float[padded], new float[padded], gs, gb, got, 0);
                    }
                }
            });
        }
    }

    /**
     * For every width and group size: the encoder's codes, scales and biases equal
     * {@link AffineCodes#quantizeRow} + {@link AffineCodes#packRow} on the same row ({@code bf16Row}:
     * values rounded to bf16 first, as a bf16 encoder reads them).
     */
    private void matchesTheScalarTwin(boolean bf16Row, boolean special, Encoder encoder) {
        for (int bits : WIDTHS) {
            for (int group : new int[] {32, 64, 128}) for (int n : new int[] {2048, 1664}) { // 1664: a short last 16 groups
                float[] w = values(n, group, special);
                if (bf16Row) for (int i = 0; i < n; i++) w[i] = Floats.bf16ToFloat(Floats.floatToBf16(w[i]));
                int groups = n / group;
                int padded = (groups + 63) / 64 * 64;
                int[] codes = new int[n];
                float[] ws = new float[groups];
                float[] wb = new float[groups];
                AffineCodes.quantizeRow(w, n, group, bits, codes, ws, wb);
                float[] gs = new float[padded];
                float[] gb = new float[padded];
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment want = arena.allocate((long) n * bits / 8);
                    MemorySegment got = arena.allocate((long) n * bits / 8);
                    AffineCodes.packRow(codes, n, bits, want, 0);
                    encoder.encode(w, n, group, bits, padded, gs, gb, got);
                    String what = bits + " bits, group " + group + ", " + n + " values";
                    assertEquals(-1, want.mismatch(got), "packed codes, " + what);
                    assertArrayEquals(bitsOf(ws), bitsOf(Arrays.copyOf(gs, groups)), "scales, " + what);
                    assertArrayEquals(bitsOf(wb), bitsOf(Arrays.copyOf(gb, groups)), "biases, " + what);
                }
            }
        }
    }

    @Test
    void vectorPackWritesTheScalarBitStreamAtEveryWidth() {
        VectorWidth.requirePath(AffineEncoding.supported(), "the vector packer (AffineEncoding.pack)", 256, 512);
        for (int bits = 1; bits <= 8; bits++) {
            int n = 512;
            int[] codes = new int[n];
            for (int i = 0; i < n; i++) codes[i] = random.nextInt(1 << bits);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment want = arena.allocate((long) n * bits / 8);
                MemorySegment got = arena.allocate((long) n * bits / 8);
                AffineCodes.packRow(codes, n, bits, want, 0);
                AffineEncoding.pack(codes, n, bits, got, 0);
                assertEquals(-1, want.mismatch(got), "packed, " + bits + " bits");
            }
        }
    }

    @Test
    void boundarySearchCountsTheBoundariesBelowEachQuotient() {
        for (int bits = 1; bits <= 4; bits++) {
            float[] boundaries = new float[(1 << bits) - 1];
            for (int i = 0; i < boundaries.length; i++) boundaries[i] = (i + 1f) / (1 << bits) * 0.4f - 0.2f;
            int n = 128;
            float[] row = new float[n];
            for (int i = 0; i < n; i++) row[i] = (float) random.nextGaussian() * 0.1f;
            row[0] = boundaries[0];                 // equal to a boundary: not above it
            row[1] = Float.NaN;
            row[2] = Math.nextUp(boundaries[boundaries.length - 1]);
            int[] counted = new int[n];
            int[] searched = new int[n];
            CodebookEncoding.codes(row, n, 1f, boundaries, counted);
            CodebookEncoding.codes(row, n, 1f, boundaries, CodebookEncoding.searchTable(boundaries), searched);
            assertArrayEquals(counted, searched, bits + " bits");
        }
    }

    /**
     * The cell grid of 3- and 4-bit tables (one multiply-add and two look-ups per vector, in
     * {@link CodebookEncoding#packedCodes}) counts exactly what the compares count, on non-uniform boundaries (normal quantiles, as Lloyd–Max's
     * are), at several row scales d, for values at, just above and just below every boundary·d,
     * signed zeros, huge values, NaN and random ones.
     */
    @Test
    void cellGridCountsExactlyTheBoundariesBelow() {
        double[] quantile16 = {-1.534, -1.150, -0.887, -0.674, -0.489, -0.319, -0.157, 0, 0.157, 0.319, 0.489, 0.674, 0.887, 1.150, 1.534};
        double[] quantile8 = {-1.150, -0.674, -0.319, 0, 0.319, 0.674, 1.150};
        for (double[] q : new double[][] {quantile8, quantile16}) {
            float[] boundaries = new float[q.length];
            for (int i = 0; i < q.length; i++) boundaries[i] = (float) (q[i] / Math.sqrt(128));
            int[] table = CodebookEncoding.searchTable(boundaries);
            // the grid needs 16-lane int vectors; at other widths the encoder searches instead
            VectorWidth.requirePath(IntVector.SPECIES_PREFERRED.length() == 16, "the cell grid of 3- and 4-bit search tables", 512);
            assertEquals(16 + 2 * 32 + 2, table.length, "a cell grid for " + q.length + " boundaries");
            for (float d : new float[] {1f, 0.37f, 1e-3f, 123f}) {
                int n = 1024;
                float[] row = new float[n];
                int k = 0;
                for (float b : boundaries) {
                    float at = b * d;
                    row[k++] = at;
                    row[k++] = Math.nextUp(at);
                    row[k++] = Math.nextDown(at);
                    row[k++] = Math.nextUp(Math.nextUp(at));
                }
                row[k++] = 0f;
                row[k++] = -0f;
                row[k++] = Float.NaN;
                row[k++] = 3e38f;
                row[k++] = -3e38f;
                row[k++] = Float.MIN_VALUE;
                while (k < n) row[k++] = (float) (random.nextGaussian() * d / Math.sqrt(128) * (k % 5 == 0 ? 4 : 1));
                int bits = q.length == 7 ? 3 : 4;
                int[] counted = new int[n];
                CodebookEncoding.codes(row, n, d, boundaries, counted);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment want = arena.allocate((long) n * bits / 8);
                    MemorySegment got = arena.allocate((long) n * bits / 8);
                    AffineCodes.packRow(counted, n, bits, want, 0);
                    CodebookEncoding.packedCodes(row, n, d, bits, table, got, 0);
                    assertEquals(-1, want.mismatch(got), q.length + " boundaries, d " + d);
                }
            }
        }
    }

    /**
     * The vector bf16 store (two vectors per word select, then single vectors) writes the scalar rounding's
     * bits: ties, values rounding into the next binade or up to infinity, infinities, NaNs with any payload
     * (kept quiet), signed zeros and subnormals; 128 values (pairs only) and 48 (a single vector after).
     */
    @Test
    void bf16StoreWritesTheScalarRoundingsBits() {
        for (int n : new int[] {128, 48}) {
            float[] row = new float[n];
            for (int i = 0; i < n; i++) row[i] = (float) random.nextGaussian() * (i % 7 == 0 ? 1e30f : 1f);
            row[0] = Float.intBitsToFloat(0x3F808000);   // a tie, even below
            row[1] = Float.intBitsToFloat(0x3F818000);   // a tie, odd below
            row[2] = Float.intBitsToFloat(0x3FFFFFFF);   // rounds up into the next binade
            row[3] = Float.MAX_VALUE;                    // rounds up to infinity
            row[4] = Float.POSITIVE_INFINITY;
            row[5] = Float.NEGATIVE_INFINITY;
            row[6] = Float.intBitsToFloat(0x7FFFFFFF);   // a NaN whose rounding would carry into the sign
            row[7] = Float.intBitsToFloat(0xFF800001);   // a signalling negative NaN
            row[8] = -0f;
            row[9] = Float.MIN_VALUE;
            row[n - 1] = Float.intBitsToFloat(0x7F80FFFF);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment got = arena.allocate(2L * n);
                CodebookVectors.storeBf16(row, n, got, 0);
                for (int i = 0; i < n; i++) {
                    assertEquals(Floats.floatToBf16(row[i]), got.getAtIndex(I16, i), "value " + i + " of " + n + ": " + row[i]);
                }
            }
        }
    }

    /** 1- to 4-bit codes packed from compare masks and registers equal the searched codes packed LSB first. */
    @Test
    void maskPackedCodesEqualTheSearchedCodesPacked() {
        for (int bits = 1; bits <= 4; bits++) {
            float[] boundaries = switch (bits) {
                case 1 -> new float[] {0f};
                case 2 -> new float[] {-0.06f, 0.001f, 0.07f};
                case 3 -> new float[] {-0.1f, -0.06f, -0.028f, 0.001f, 0.03f, 0.07f, 0.11f};
                default -> new float[] {-0.16f, -0.12f, -0.1f, -0.075f, -0.06f, -0.04f, -0.028f, 0.001f, 0.017f, 0.03f, 0.05f, 0.07f,
                        0.09f, 0.11f, 0.15f};
            };
            int[] table = CodebookEncoding.searchTable(boundaries);
            // masks of 16 lanes are 16 packed codes; at other widths codes are packed from ints
            VectorWidth.requirePath(CodebookEncoding.packsFromMasks(bits, table), "packing " + bits + "-bit codes from compare masks", 512);
            for (float d : new float[] {0.83f, Float.NaN}) { // NaN: a row holding NaN, whose norm is NaN
                int n = 128;
                float[] row = new float[n];
                for (int i = 0; i < n; i++) row[i] = (float) random.nextGaussian() * 0.1f;
                for (int i = 0; i < boundaries.length; i++) {
                    row[3 * i] = boundaries[i] * d;                       // equal: not above
                    row[3 * i + 1] = Math.nextUp(boundaries[i] * d);
                    row[3 * i + 2] = Math.nextDown(boundaries[i] * d);
                }
                row[30] = Float.NaN;
                row[31] = -0f;
                int[] codes = new int[n];
                CodebookEncoding.codes(row, n, d, boundaries, table, codes);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment want = arena.allocate((long) n * bits / 8);
                    MemorySegment got = arena.allocate((long) n * bits / 8);
                    AffineCodes.packRow(codes, n, bits, want, 0);
                    CodebookEncoding.packedCodes(row, n, d, bits, table, got, 0);
                    assertEquals(-1, want.mismatch(got), bits + " bits, d " + d);
                }
            }
        }
    }

    @Test
    void bf16DequantizeMatchesTheFormulaAtEveryGroupAndOffset() {
        for (int bits : WIDTHS) {
            for (int shift = 5; shift <= 7; shift++) {
                for (int firstBlock = 0; firstBlock < 5; firstBlock++) {
                    int blocks = 24;
                    int total = 32 * (blocks + firstBlock);
                    int[] codes = new int[total];
                    for (int i = 0; i < total; i++) codes[i] = random.nextInt(1 << bits);
                    float[] scales = new float[(total + (1 << shift) - 1) >>> shift];
                    float[] biases = new float[scales.length];
                    for (int g = 0; g < scales.length; g++) {
                        scales[g] = Floats.roundToBf16((float) random.nextGaussian() * 0.1f);
                        biases[g] = Floats.roundToBf16((float) random.nextGaussian());
                    }
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment packed = arena.allocate((long) total * bits / 8 + 256);
                        AffineCodes.packRow(codes, total, bits, packed, 0);
                        MemorySegment out = arena.allocate(2L * 32 * blocks);
                        AffineVectors.dequantizeBlocksBf16(packed, 4L * bits * firstBlock, bits, blocks, scales, biases, 32 * firstBlock,
                                shift, out, 0);
                        for (int i = 0; i < 32 * blocks; i++) {
                            int c = 32 * firstBlock + i;
                            float prod = Floats.roundToBf16(codes[c] * scales[c >>> shift]);
                            assertEquals(Floats.floatToBf16(prod + biases[c >>> shift]), out.getAtIndex(I16, i),
                                    "value " + i + ", " + bits + " bits, group " + (1 << shift) + ", first block " + firstBlock);
                        }
                    }
                }
            }
        }
    }

    @Test
    void codebookRowLookUpsFromBytesMatchUnpackingFirst() {
        int checked = 0;
        for (int bits = 1; bits <= 4; bits++) {
            for (int n : new int[] {32, 64, 128}) {
                float[] book = new float[1 << bits];
                for (int i = 0; i < book.length; i++) book[i] = (float) random.nextGaussian();
                CodebookVectors.Table table = CodebookVectors.Table.of(book);
                boolean windows = CodebookVectors.looksUpWindows(table, bits, n);
                boolean bytes4 = CodebookVectors.looksUpPacked4(table, bits, n);
                if (!windows && !bytes4) continue; // no such path for this width and length here
                checked++;
                int rows = 5;
                int[] codes = new int[rows * n];
                for (int i = 0; i < codes.length; i++) codes[i] = random.nextInt(1 << bits);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment packed = arena.allocate((long) rows * n * bits / 8); // the last rows end at the segment's end
                    AffineCodes.packRow(codes, rows * n, bits, packed, 0);
                    for (int r = 0; r < rows; r++) {
                        long rowByte = (long) r * n * bits / 8;
                        int[] unpacked = new int[n];
                        CodebookVectors.unpack(packed, rowByte, bits, n, unpacked, 0);
                        float[] want = new float[n];
                        CodebookVectors.lookupRow(table, unpacked, n, 0.75f, want);
                        float[] got = new float[n];
                        if (windows) CodebookVectors.lookupWindows(table, packed, rowByte, bits, n, 0.75f, got);
                        else CodebookVectors.lookupPacked4(table, packed, rowByte, n, 0.75f, got);
                        assertArrayEquals(bitsOf(want), bitsOf(got), bits + " bits, rows of " + n + ", row " + r);
                    }
                }
            }
        }
        // 1 to 3 bits look up windows, 4 bits packed nibbles: both need 16 lanes
        VectorWidth.requireChecked(checked, "codebook row look-ups straight from bytes", 512);
    }

    /**
     * Raw bits, except that every NaN reads as the canonical NaN: Java leaves the sign and payload of
     * an arithmetic NaN to the hardware and the JIT (x86 makes 0xffc00000 from inf - inf, a C2-folded
     * constant is 0x7fc00000), so a group holding an infinity may give either, run to run (CI saw both).
     */
    private static int[] bitsOf(float[] v) {
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) out[i] = Float.floatToIntBits(v[i]);
        return out;
    }
}
