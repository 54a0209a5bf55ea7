package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.Bf16RowDecoder;
import panamax.backend.java.kernel.CodebookEncoding;
import panamax.backend.java.kernel.CodebookVectors;
import panamax.backend.java.kernel.HadamardVectors;

/**
 * The codebook and Hadamard vector kernels agree with their scalar twins at every width and length
 * they take, including the in-register and the eight-vector FWHT paths and both decode routes of
 * {@code codebookMatmul} (codes from their words, and unpacked codes).
 */
class CodebookKernelsTest {
    private final Random random = new Random(7);

    @Test
    void vectorHadamardMatchesTheScalarButterflyForEveryPowerOfTwo() {
        for (int n = 1; n <= 1024; n *= 2) {
            float[] x = new float[n];
            float[] s = new float[n];
            for (int i = 0; i < n; i++) {
                x[i] = (float) random.nextGaussian();
                s[i] = random.nextBoolean() ? 1 : -1;
            }
            for (int mode = 0; mode < 3; mode++) {
                float[] pre = mode == 1 ? s : null;
                float[] post = mode == 2 ? s : null;
                float[] want = x.clone();
                float[] got = x.clone();
                HadamardVectors.scalar(want, n, pre, post);
                HadamardVectors.transform(got, n, pre, post);
                for (int i = 0; i < n; i++) assertEquals(want[i], got[i], 1e-5 * Math.sqrt(n), "n=" + n + " mode " + mode + " at " + i);
            }
        }
    }

    @Test
    void bf16RowRotationGivesTheSameBitsAsTheFloatTransform() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int n : new int[] {64, 128}) {
                if (!HadamardVectors.rotatesBf16(n)) continue; // not at this width
                checked++;
                MemorySegment rows = arena.allocate(2L * n * 3 + 2, 2);
                float[] signs = new float[n];
                for (int i = 0; i < n; i++) signs[i] = random.nextBoolean() ? 1 : -1;
                float[] factors = new float[n];
                HadamardVectors.bf16Factors(signs, n, factors);
                for (int r = 0; r < 3; r++) {
                    long at = 2 + 2L * n * r; // unaligned by one bf16
                    float[] want = new float[n];
                    for (int i = 0; i < n; i++) {
                        // wide magnitudes, ±0, subnormals and an infinity in row 2
                        float v = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(9) - 4));
                        if (i == 3) v = r == 1 ? -0f : Float.MIN_NORMAL / 8;
                        if (r == 2 && i == 5) v = Float.POSITIVE_INFINITY;
                        short bits = panamax.backend.java.kernel.Floats.floatToBf16(v);
                        rows.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, at + 2L * i, bits);
                        want[i] = panamax.backend.java.kernel.Floats.bf16ToFloat(bits);
                    }
                    HadamardVectors.transform(want, n, signs, null);
                    float[] got = new float[n];
                    float sum = HadamardVectors.rotateBf16(rows, at, n, factors, got);
                    double want2 = 0;
                    for (float v : want) want2 += (double) v * v;
                    assertEquals(want2, sum, 1e-5 * want2 + 1e-30, "n=" + n + " row " + r + " sum of squares");
                    for (int i = 0; i < n; i++) {
                        assertEquals(Float.floatToRawIntBits(want[i]), Float.floatToRawIntBits(got[i]), "n=" + n + " row " + r + " at " + i);
                    }
                }
            }
        }
        VectorWidth.requireChecked(checked, "the bf16 row rotation (HadamardVectors.rotateBf16)", 512);
    }

    @Test
    void oneRowEncoderGivesTheCodesOfRotationThenPackingAtEveryWidth() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int bits = 1; bits <= 4; bits++) {
            float[] bounds = new float[(1 << bits) - 1];
            for (int i = 0; i < bounds.length; i++) bounds[i] = (float) ((i + 1.0) / (1 << bits) - 0.5) * 0.5f;
            int[] table = CodebookEncoding.searchTable(bounds);
            for (int n : new int[] {64, 128}) {
                if (!panamax.backend.java.kernel.Bf16RowEncoder.encodes(n, bits, table)) continue; // not at this width
                checked++;
                float[] signs = new float[n];
                for (int i = 0; i < n; i++) signs[i] = random.nextBoolean() ? 1 : -1;
                float[] factors = new float[n];
                HadamardVectors.bf16Factors(signs, n, factors);
                MemorySegment rows = arena.allocate(2L * n * 5 + 2, 2);
                for (int r = 0; r < 5; r++) {
                    long at = 2 + 2L * n * r; // unaligned by one bf16
                    for (int i = 0; i < n; i++) {
                        float v = (float) random.nextGaussian() * (r == 1 ? 1e-20f : 1f);
                        if (r == 2 && i == 7) v = Float.NaN;
                        if (r == 3) v = i == 0 ? 1f : 0f; // one spike: every rotated value at ±1/√n, on the boundaries' scale
                        if (r == 4) v = i == 9 ? Float.NEGATIVE_INFINITY : 1f;
                        rows.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, at + 2L * i, panamax.backend.java.kernel.Floats.floatToBf16(v));
                    }
                    float[] rotated = new float[n];
                    float rotatedNorm = (float) Math.sqrt(HadamardVectors.rotateBf16(rows, at, n, factors, rotated));
                    int bytes = n * bits / 8;
                    MemorySegment got = arena.allocate(bytes + 16);
                    float norm = panamax.backend.java.kernel.Bf16RowEncoder.encode(rows, at, n, factors, bits, table, got, 0);
                    String where = bits + " bits, n=" + n + ", row " + r;
                    if (r == 2 || r == 4) {
                        assertEquals(-1f, norm, where + ": a row with a NaN or an infinity is refused");
                        assertEquals(0, got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0), where + ": and nothing written");
                        continue;
                    }
                    // the input's norm, which the rotation keeps: the rotated row's up to rounding (and, for the row of
                    // 1e-20s, up to the subnormal squares' absolute rounding)
                    assertEquals(rotatedNorm, norm, 1e-6 * rotatedNorm + 1e-24, where + " norm");
                    MemorySegment want = arena.allocate(bytes + 16);
                    CodebookEncoding.packedCodes(rotated, n, Math.max(norm, Float.MIN_NORMAL), bits, table, want, 0);
                    for (long b = 0; b < bytes; b++) {
                        assertEquals(want.get(java.lang.foreign.ValueLayout.JAVA_BYTE, b), got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, b), where + " byte " + b);
                    }
                    assertEquals(0, got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, bytes), where + ": nothing written past the row");
                }
            }
            }
        }
        VectorWidth.requireChecked(checked, "the one-row bf16 codebook encoder (Bf16RowEncoder.encode)", 512);
    }

    @Test
    void pairEncoderGivesEachRowsOneRowEncoding() {
        int n = 64;
        int widths = 0;
        for (int bits = 1; bits <= 4; bits++) {
            float[] bounds = new float[(1 << bits) - 1];
            for (int i = 0; i < bounds.length; i++) bounds[i] = (float) ((i + 1.0) / (1 << bits) - 0.5) * 0.5f;
            int[] table = CodebookEncoding.searchTable(bounds);
            if (!panamax.backend.java.kernel.Bf16RowEncoder.encodes(n, bits, table)) continue; // not on this CPU's vectors
            widths++;
            int bytes = n * bits / 8;
            try (Arena arena = Arena.ofConfined()) {
                float[][] factors = new float[2][n];
                for (float[] f : factors) {
                    float[] signs = new float[n];
                    for (int i = 0; i < n; i++) signs[i] = random.nextBoolean() ? 1 : -1;
                    HadamardVectors.bf16Factors(signs, n, f);
                }
                MemorySegment rows = arena.allocate(2L * n * 3, 2);
                for (long i = 0; i < 3L * n; i++) {
                    float v = (float) random.nextGaussian() * (i >= n && i < 2 * n ? 1e-3f : 1f); // the rows differ in scale
                    rows.setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT, i, panamax.backend.java.kernel.Floats.floatToBf16(v));
                }
                MemorySegment got = arena.allocate(2L * n);
                float[] norms = new float[2];
                // rows 0 and 1 with different signs, packed 64 bytes apart
                assertEquals(true, panamax.backend.java.kernel.Bf16RowEncoder.encodePairOf64(rows, 0, factors[0], 2L * n, factors[1], bits, table, got, 0, n, norms));
                for (int k = 0; k < 2; k++) {
                    String where = bits + " bits, row " + k;
                    MemorySegment want = arena.allocate(bytes);
                    float norm = panamax.backend.java.kernel.Bf16RowEncoder.encode(rows, 2L * n * k, n, factors[k], bits, table, want, 0);
                    assertEquals(Float.floatToRawIntBits(norm), Float.floatToRawIntBits(norms[k]), where + " norm");
                    for (long b = 0; b < bytes; b++) {
                        assertEquals(want.get(java.lang.foreign.ValueLayout.JAVA_BYTE, b), got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, (long) n * k + b), where + " byte " + b);
                    }
                    assertEquals(0, got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, (long) n * k + bytes), where + ": nothing past its codes");
                }
                // a NaN in the second row: both refused, nothing written
                rows.setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT, 2L * n + 5, panamax.backend.java.kernel.Floats.floatToBf16(Float.NaN));
                MemorySegment none = arena.allocate(2L * n);
                assertEquals(false, panamax.backend.java.kernel.Bf16RowEncoder.encodePairOf64(rows, 2L * n, factors[0], 4L * n, factors[1], bits, table, none, 0, n, norms));
                for (long b = 0; b < 2L * n; b++) assertEquals(0, none.get(java.lang.foreign.ValueLayout.JAVA_BYTE, b), bits + " bits refused: byte " + b);
            }
        }
        VectorWidth.requireChecked(widths, "the pair bf16 codebook encoder (Bf16RowEncoder.encodePairOf64)", 512);
        assertEquals(4, widths, "every code width (1 to 4 bits) has a pair encoder where any has one");
    }

    @Test
    void fusedBf16DecodeGivesTheSameBitsAsLookUpRotateAndStore() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int bits = 1; bits <= 4; bits++) {
                float[] book = new float[1 << bits];
                for (int i = 0; i < book.length; i++) book[i] = (float) random.nextGaussian() / 4;
                CodebookVectors.Table table = CodebookVectors.Table.of(book);
                for (int n : new int[] {64, 128}) {
                    if (!Bf16RowDecoder.decodes(table, bits, n)) continue; // not at this width
                    checked++;
                    MemorySegment packed = arena.allocate(n * bits / 8 + 64 + 4);
                    for (long i = 0; i < packed.byteSize(); i++) packed.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
                    float[] signs = new float[n];
                    for (int i = 0; i < n; i++) signs[i] = random.nextBoolean() ? 1 : -1;
                    int[] signWords = new int[n / 2];
                    Bf16RowDecoder.signWords(signs, n, signWords);
                    // a plain scale, one whose products round, and the largest one it takes (no NaN or infinity can arise)
                    for (float scale : new float[] {1f, 0.3f, (float) (0.99e38 / n / table.maxAbs())}) {
                        assertEquals(true, Bf16RowDecoder.decodesFinite(table, n, scale));
                        long rowByte = 4; // unaligned
                        int[] codes = new int[n];
                        float[] row = new float[n];
                        CodebookVectors.unpack(packed, rowByte, bits, n, codes, 0);
                        CodebookVectors.lookupRow(table, codes, n, scale, row);
                        HadamardVectors.transform(row, n, null, signs);
                        MemorySegment want = arena.allocate(2L * n);
                        MemorySegment got = arena.allocate(2L * n + 2);
                        CodebookVectors.storeBf16(row, n, want, 0);
                        Bf16RowDecoder.decode(table, packed, rowByte, bits, n, scale, signWords, got, 2);
                        for (int i = 0; i < n; i++) {
                            assertEquals(want.getAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT, i),
                                    got.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, 2 + 2L * i), bits + " bits, n=" + n + ", scale " + scale + " at " + i);
                        }
                    }
                    assertEquals(false, Bf16RowDecoder.decodesFinite(table, n, 3e38f), "a scale that may overflow");
                    assertEquals(false, Bf16RowDecoder.decodesFinite(table, n, Float.NaN), "a NaN scale");
                }
            }
        }
        VectorWidth.requireChecked(checked, "the fused bf16 codebook decoder (Bf16RowDecoder.decode)", 512);
    }

    @Test
    void pairDecoderGivesEachRowsOneRowDecoding() {
        int n = 64;
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int bits = 1; bits <= 4; bits++) {
                float[] book = new float[1 << bits];
                for (int i = 0; i < book.length; i++) book[i] = (float) random.nextGaussian() / 4;
                CodebookVectors.Table table = CodebookVectors.Table.of(book);
                if (!Bf16RowDecoder.decodes(table, bits, n)) continue; // not at this width
                checked++;
                MemorySegment packed = arena.allocate(2L * n * bits / 8 + 64);
                for (long i = 0; i < packed.byteSize(); i++) packed.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
                int[][] signWords = new int[2][n / 2];
                for (int[] w : signWords) {
                    float[] signs = new float[n];
                    for (int i = 0; i < n; i++) signs[i] = random.nextBoolean() ? 1 : -1;
                    Bf16RowDecoder.signWords(signs, n, w);
                }
                long rowB = n * bits / 8;
                MemorySegment want = arena.allocate(4L * n);
                MemorySegment got = arena.allocate(4L * n);
                Bf16RowDecoder.decode(table, packed, 0, bits, n, 0.7f, signWords[0], want, 0);
                Bf16RowDecoder.decode(table, packed, rowB, bits, n, 3f, signWords[1], want, 2L * n);
                Bf16RowDecoder.decodeOf64Pair(table, packed, bits, 0, 0.7f, signWords[0], 0, rowB, 3f, signWords[1], 2L * n, got);
                for (long i = 0; i < 2L * n; i++) {
                    assertEquals(want.getAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT, i), got.getAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT, i),
                            bits + " bits, value " + i);
                }
            }
        }
        VectorWidth.requireChecked(checked, "the pair bf16 codebook decoder (Bf16RowDecoder.decodeOf64Pair)", 512);
    }

    @Test
    void vectorPackingMatchesTheScalarBitStreamAtEveryWidth() {
        for (int bits : new int[] {1, 2, 3, 4, 5, 6, 8}) {
            for (int n = 64; n <= 256; n += 64) {
                int[] codes = new int[n];
                for (int i = 0; i < n; i++) codes[i] = random.nextInt(1 << bits);
                int[] want = new int[n * bits / 32];
                int[] got = new int[n * bits / 32];
                CodebookEncoding.packScalar(codes, n, bits, want);
                CodebookEncoding.pack(codes, n, bits, got);
                assertArrayEquals(want, got, bits + " bits, " + n + " codes");
            }
        }
    }

    @Test
    void scoresFromWordsEqualScoresFromUnpackedCodes() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int bits = 1; bits <= 4; bits++) {
                int k = 128;
                int words = k * bits / 32;
                MemorySegment packed = arena.allocate(4L * words * 3); // three rows: the last one loads masked
                for (long i = 0; i < packed.byteSize(); i++) packed.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
                float[] book = new float[1 << bits];
                for (int i = 0; i < book.length; i++) book[i] = (float) random.nextGaussian();
                CodebookVectors.Table table = CodebookVectors.Table.of(book);
                float[] x = new float[CodebookVectors.ROW_BLOCK * k];
                for (int i = 0; i < x.length; i++) x[i] = (float) random.nextGaussian();
                if (!CodebookVectors.decodesDirectly(table, bits, k)) continue; // k·bits wider than 32 lanes of words here
                checked++;
                int[] codes = new int[k];
                // three w rows (tokens) scored as one block, each with its own row scale, against the unpacked kernel
                float[] rowScales = {0.5f, 0.25f, 2f};
                long[] rowBytes = new long[3];
                int blockRows = rowBytes.length;
                float[] want = new float[CodebookVectors.ROW_BLOCK * blockRows];
                for (int row = 0; row < blockRows; row++) {
                    rowBytes[row] = 4L * words * row;
                    CodebookVectors.unpack(packed, rowBytes[row], bits, k, codes, 0);
                    CodebookVectors.scoreRow(table, codes, k, x, 0, CodebookVectors.ROW_BLOCK, rowScales[row], want, row, blockRows);
                }
                float[] got = new float[want.length];
                CodebookVectors.scoreRowsPacked(table, packed, rowBytes, blockRows, bits, k, x, 0, CodebookVectors.ROW_BLOCK, rowScales, 0,
                        got, 0, blockRows, CodebookVectors.scoreVectors(), new float[CodebookVectors.ROW_BLOCK * CodebookVectors.SCORE_BLOCK]);
                for (int i = 0; i < got.length; i++) {
                    assertEquals(want[i], got[i], 1e-4, bits + " bits, row " + i % blockRows + ", query " + i / blockRows);
                }
            }
        }
        // 128 codes of 1 bit fit four int lanes: every width decodes some
        VectorWidth.requireChecked(checked, "scores straight from code words (CodebookVectors.scoreRowsPacked)", 128, 256, 512);
    }
}
