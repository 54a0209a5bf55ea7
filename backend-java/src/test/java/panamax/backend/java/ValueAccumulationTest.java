package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.Floats;
import panamax.backend.java.kernel.MatVec;
import panamax.backend.java.kernel.ValueAccumulation;

/**
 * The register-blocked p·V gives the same bits as one {@code MatVec.axpy} per (value row, query
 * row) from zero, the loop it replaced (over the exact f32 widening of bf16 values): every row count 1 to 9 (blocks of four and their
 * remainders), value widths of one and two column blocks, zero weights where a row does not attend,
 * and a range that starts and ends inside the cache.
 */
class ValueAccumulationTest {
    @Test
    void matchesTheAxpyLoopBitForBit() {
        check(false);
    }

    @Test
    void bf16ValuesMatchTheAxpyLoopOverTheirF32Widening() {
        check(true);
    }

    private static void check(boolean bf16) {
        Random random = new Random(bf16 ? 6 : 5);
        int tk = 37;
        int checked = 0;
        for (int dv : new int[] {64, 128}) {
            if (!ValueAccumulation.supports(dv)) continue; // dv not whole register blocks here
            checked++;
            for (int rows = 1; rows <= 9; rows++) {
                try (Arena arena = Arena.ofShared()) {
                    int bytes = bf16 ? 2 : 4;
                    long rowBytes = (long) bytes * (dv + 16); // padded rows: the stride is not the width
                    MemorySegment v = arena.allocate(rowBytes * tk + 64, 64);
                    float[][] values = new float[tk][dv];
                    for (int j = 0; j < tk; j++) {
                        for (int e = 0; e < dv; e++) {
                            values[j][e] = (float) random.nextGaussian();
                            if (bf16) {
                                short b = Floats.floatToBf16(values[j][e]);
                                values[j][e] = Floats.bf16ToFloat(b);
                                v.set(ValueLayout.JAVA_SHORT_UNALIGNED, 64 + j * rowBytes + 2L * e, b);
                            } else {
                                v.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 64 + j * rowBytes + 4L * e, values[j][e]);
                            }
                        }
                    }
                    float[] p = new float[rows * tk];
                    for (int i = 0; i < p.length; i++) p[i] = random.nextInt(5) == 0 ? 0f : random.nextFloat();
                    int first = 3, last = tk - 5;
                    float[] want = new float[rows * dv];
                    for (int j = first; j <= last; j++) {
                        for (int r = 0; r < rows; r++) {
                            if (p[r * tk + j] != 0) MatVec.axpy(p[r * tk + j], values[j], 0, want, r * dv, dv);
                        }
                    }
                    float[] got = new float[rows * dv];
                    java.util.Arrays.fill(got, Float.NaN); // every element must be written
                    if (bf16) ValueAccumulation.accumulateBf16(v, 64, rowBytes, dv, p, tk, rows, first, last, got);
                    else ValueAccumulation.accumulate(v, 64, rowBytes, dv, p, tk, rows, first, last, got);
                    int[] wantBits = new int[want.length];
                    int[] gotBits = new int[got.length];
                    for (int i = 0; i < want.length; i++) {
                        wantBits[i] = Float.floatToRawIntBits(want[i]);
                        gotBits[i] = Float.floatToRawIntBits(got[i]);
                    }
                    assertTrue(want[0] != 0, "the reference is not trivially zero");
                    assertArrayEquals(wantBits, gotBits, "dv " + dv + ", rows " + rows);
                }
            }
        }
        // blocks of four vectors: 16 to 64 floats, so 64 and 128 fit at every width up to 512 bits
        VectorWidth.requireChecked(checked, "the value accumulation (ValueAccumulation." + (bf16 ? "accumulateBf16" : "accumulate") + ")", 128, 256, 512);
    }
}
