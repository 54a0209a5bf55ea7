package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.AffineVectors;
import panamax.backend.java.kernel.Floats;
import panamax.backend.java.kernel.TableLookup;

/**
 * The affine vector kernels and the table lookup agree bit for bit with their scalar twins in
 * {@link AffineCodes}, for every width, with blocks whose vector loads would pass the buffer's end.
 */
class AffineVectorsTest {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int[] WIDTHS = {2, 3, 4, 5, 6, 8};
    private final Random random = new Random(5);

    private float[] values(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) (random.nextGaussian() * (i % 97 == 0 ? 40 : 1));
        for (int i = 0; i < n; i += 128) v[i] = 0; // ties and a zero in every few groups
        return v;
    }

    @Test
    void quantizeAndPackMatchTheScalarTwins() {
        for (int bits : WIDTHS) {
            for (int group : new int[] {32, 64, 128}) {
                int n = 1024;
                float[] w = values(n);
                int[] want = new int[n];
                float[] ws = new float[n / group];
                float[] wb = new float[n / group];
                AffineCodes.quantizeRow(w, n, group, bits, want, ws, wb);
                int[] got = new int[n];
                float[] gs = new float[n / group];
                float[] gb = new float[n / group];
                AffineVectors.quantizeGroups(w, n, group, bits, got, gs, gb);
                assertArrayEquals(want, got, "codes, " + bits + " bits, group " + group);
                assertArrayEquals(ws, gs, "scales, " + bits + " bits, group " + group);
                assertArrayEquals(wb, gb, "biases, " + bits + " bits, group " + group);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment a = arena.allocate(4L * n * bits / 32);
                    MemorySegment b = arena.allocate(4L * n * bits / 32);
                    AffineCodes.packRow(want, n, bits, a, 0);
                    AffineVectors.pack(got, n, bits, b, 0);
                    assertEquals(-1, a.mismatch(b), "packed words, " + bits + " bits");
                }
            }
        }
    }

    @Test
    void unpackAndDequantizeMatchTheScalarFormulaUpToTheBufferEnd() {
        for (int bits : WIDTHS) {
            int n = 32 * 37;
            int[] codes = new int[n];
            for (int i = 0; i < n; i++) codes[i] = random.nextInt(1 << bits);
            float[] scales = new float[n / 32];
            float[] biases = new float[n / 32];
            for (int g = 0; g < scales.length; g++) {
                scales[g] = Floats.roundToBf16((float) random.nextGaussian());
                biases[g] = Floats.roundToBf16((float) random.nextGaussian());
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment packed = arena.allocate(4L * n * bits / 32); // exact size: the last blocks take the scalar tail
                AffineCodes.packRow(codes, n, bits, packed, 0);
                int[] got = new int[n];
                AffineCodes.unpack(packed, 0, bits, 0, n, got);
                assertArrayEquals(codes, got, "unpack, " + bits + " bits");
                float[] f32 = new float[n];
                AffineCodes.dequantize(packed, 0, bits, 32, scales, biases, 0, n, new int[n], f32, 0);
                MemorySegment bf16 = arena.allocate(2L * n);
                long safe = AffineVectors.safeBlocks(packed, 0, bits, n / 32);
                AffineVectors.dequantizeBlocksBf16(packed, 0, bits, (int) safe, scales, biases, 0, 5, bf16, 0);
                for (int i = 0; i < n; i++) {
                    float prod = codes[i] * scales[i / 32];
                    assertEquals(prod + biases[i / 32], f32[i], "f32 dequantize at " + i + ", " + bits + " bits");
                    if (i < 32 * safe) {
                        short want = Floats.floatToBf16(Floats.roundToBf16(prod) + biases[i / 32]);
                        assertEquals(want, bf16.get(I16, 2L * i), "bf16 dequantize at " + i + ", " + bits + " bits");
                    }
                }
            }
        }
    }

    @Test
    void tableLookupGathersAndReportsTheFirstBadIndex() {
        for (int size : new int[] {2, 16, 200}) {
            int[] table = new int[size];
            for (int j = 0; j < size; j++) table[j] = random.nextInt();
            int n = 1000;
            int[] ix = new int[n];
            for (int i = 0; i < n; i++) ix[i] = random.nextInt(size);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(4L * n);
                assertEquals(-1, TableLookup.lookup(table, MemorySegment.ofArray(ix), 0, n, out, 0));
                for (int i = 0; i < n; i++) assertEquals(table[ix[i]], out.get(U32, 4L * i), "lookup at " + i);
                ix[777] = size;
                assertEquals(777, TableLookup.lookup(table, MemorySegment.ofArray(ix), 0, n, out, 0));
                ix[777] = 0;
                ix[5] = -1;
                assertEquals(5, TableLookup.lookup(table, MemorySegment.ofArray(ix), 0, n, out, 0));
            }
        }
    }
}
