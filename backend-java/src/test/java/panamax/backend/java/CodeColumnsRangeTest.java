package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.CodeColumns;

/**
 * A key's score from {@link CodeColumns#affineScores} has the same bits wherever its call's range ends: at the end of
 * the keys' storage (a cache whose last head has filled its plane), inside it, or past the key's own tile. The last
 * tile of every call is transposed word by word and the others in registers, so this holds only while both
 * transpositions give the same words.
 */
class CodeColumnsRangeTest {
    private final Random random = new Random(11);

    @Test
    void keyScoresDoNotDependOnWhereTheRangeOrTheStorageEnds() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int bits : new int[] {2, 4, 8}) {
                int k = 64, gs = 32, keys = 45, more = 100; // rows of 16, 32 and 64 bytes: the short ones are over-read
                if (!CodeColumns.supports(bits, k)) continue;
                QuantizedRows wide = QuantizedRows.of(arena, more, k, bits, gs, this::gaussian);
                long rowBytes = wide.rowBytes();
                MemorySegment exact = arena.allocate(rowBytes * keys); // the first 45 rows alone: their storage ends with them
                MemorySegment.copy(wide.packed(), 0, exact, 0, rowBytes * keys);
                float[] x = gaussian(4 * k);
                float[] atStorageEnd = scores(exact, rowBytes, wide, x, bits, k, gs, 0, keys);
                float[] insideStorage = scores(wide.packed(), rowBytes, wide, x, bits, k, gs, 0, keys);
                float[] longerRange = scores(wide.packed(), rowBytes, wide, x, bits, k, gs, 0, more);
                for (int r = 0; r < 4; r++) {
                    for (int j = 0; j < keys; j++) {
                        String where = bits + "-bit keys, query row " + r + ", key " + j;
                        int bitsAtEnd = Float.floatToRawIntBits(atStorageEnd[r * keys + j]);
                        assertEquals(bitsAtEnd, Float.floatToRawIntBits(insideStorage[r * keys + j]), where + ": storage ending with the range");
                        assertEquals(bitsAtEnd, Float.floatToRawIntBits(longerRange[r * more + j]), where + ": a range of " + more + " keys");
                    }
                }
                checked++;
            }
        }
        VectorWidth.requireChecked(checked, "CodeColumns (key ranges)", 512);
    }

    private static float[] scores(MemorySegment packed, long rowBytes, QuantizedRows params, float[] x, int bits, int k, int gs,
                                  int n0, int n1) {
        CodeColumns columns = new CodeColumns(bits, k, gs);
        float[] c = new float[4 * n1];
        columns.affineScores(packed, 0, rowBytes, params.params(), x, 4, n0, n1, c, n1);
        return c;
    }

    private float[] gaussian(int length) {
        return GaussianFloats.of(random, length);
    }
}
