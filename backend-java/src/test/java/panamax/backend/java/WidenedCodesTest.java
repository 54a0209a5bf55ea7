package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.Parallel;
import panamax.backend.java.kernel.QuantMatVec;
import panamax.backend.java.kernel.WidenedCodes;

/** 3-, 5- and 6-bit codes copied at 4 and 8 bits for the vector kernels: the same codes, the same products. */
class WidenedCodesTest {
    private final Random random = new Random(23);

    private float[] gaussian(int n) {
        return GaussianFloats.of(random, n);
    }

    @Test
    void onlyWidthsTheVectorKernelsLackAreWidened() {
        for (int bits : new int[] {2, 4, 8}) assertFalse(WidenedCodes.supports(bits, 512, 64), bits + "-bit codes need no widening");
        assertFalse(WidenedCodes.supports(7, 512, 64), "7-bit codes are not MLX's");
        assertEquals(37L * 512 * 4 / 8, WidenedCodes.bytes(37, 512, 3), "3-bit codes widened take 4 bits each");
        assertEquals(37L * 512, WidenedCodes.bytes(37, 512, 6), "6-bit codes widened take a byte each");
    }

    @Test
    void widenedCodesHoldTheSameCodesAndGiveTheProductsOfTheOriginal() {
        int checked = 0;
        try (Arena arena = Arena.ofConfined(); Parallel two = new Parallel(2)) {
            for (int bits : new int[] {3, 5, 6}) {
                int k = 512, n = 37, rows = 5, gs = 64;
                int wide = bits == 3 ? 4 : 8;
                QuantizedRows q = QuantizedRows.of(arena, n, k, bits, gs, this::gaussian);
                try (WidenedCodes w = WidenedCodes.widen(two, q.packed(), 0, q.rowBytes(), n, k, bits)) {
                    assertEquals(wide, w.bits(), bits + "-bit codes' width");
                    assertEquals((long) k * wide / 8, w.rowBytes());
                    assertEquals(WidenedCodes.bytes(n, k, bits), w.bytes());
                    // row by row, the words MLX's packing gives the same codes at the wider width
                    int[] codes = new int[k];
                    MemorySegment byHand = arena.allocate(w.rowBytes());
                    for (int r = 0; r < n; r++) {
                        AffineCodes.unpack(q.packed(), r * q.rowBytes(), bits, 0, k, codes);
                        AffineCodes.packRow(codes, k, wide, byHand, 0);
                        for (long i = 0; i < w.rowBytes() / 4; i++) {
                            assertEquals(byHand.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i),
                                    w.codes().get(ValueLayout.JAVA_INT_UNALIGNED, r * w.rowBytes() + 4 * i), bits + "-bit row " + r + ", word " + i);
                        }
                    }
                    if (!WidenedCodes.supports(bits, k, gs)) continue; // the vector kernels do not run at this width
                    float[] x = gaussian(rows * k);
                    float[] sums = QuantMatVec.groupSums(x, rows, k, gs);
                    float[] arranged = new float[rows * k];
                    for (int r = 0; r < rows; r++) QuantMatVec.arrange(x, r * k, k, wide, arranged, r * k);
                    float[] got = new float[rows * n];
                    QuantMatVec.vector(w.codes(), 0, w.rowBytes(), wide, gs, k, q.params(), arranged, sums, rows, 0, n, got, n);
                    float[] want = new float[rows * n];
                    QuantMatVec.generic(q.packed(), 0, q.rowBytes(), bits, gs, k, q.params(), x, rows, 0, n, want, n);
                    for (int i = 0; i < want.length; i++) {
                        assertEquals(want[i], got[i], 1e-5 * Math.sqrt(k) * (8 + Math.abs(want[i])), bits + "-bit, output " + i);
                    }
                    checked++;
                }
            }
        }
        // wherever the vector kernels take 4- and 8-bit codes, every narrower width runs through them widened
        if (QuantMatVec.supports(4, 512, 64) && QuantMatVec.supports(8, 512, 64)) assertEquals(3, checked, "widths through the vector kernels");
    }
}
