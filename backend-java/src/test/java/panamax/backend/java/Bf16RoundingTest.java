package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.backend.java.kernel.Floats;

/** bf16 stores round to nearest with ties to even; widening is exact; the vector widening matches the scalar one. */
class Bf16RoundingTest {
    @Test
    void tiesRoundToEvenAndOthersToNearest() {
        // 1 + 2^-8 lies exactly between bf16 1.0 and 1.0078125: ties to the even mantissa (1.0)
        assertEquals(1.0f, Floats.roundToBf16(1f + 0x1p-8f), 0f);
        // 1.0078125 + 2^-8 lies between 1.0078125 (odd) and 1.015625 (even): goes up
        assertEquals(1.015625f, Floats.roundToBf16(1.0078125f + 0x1p-8f), 0f);
        // just above the tie goes up
        assertEquals(1.0078125f, Floats.roundToBf16(Math.nextUp(1f + 0x1p-8f)), 0f);
        assertEquals(-1.0f, Floats.roundToBf16(-1f - 0x1p-8f), 0f);
    }

    @Test
    void specialValuesSurvive() {
        assertTrue(Float.isNaN(Floats.roundToBf16(Float.NaN)));
        assertEquals(Float.POSITIVE_INFINITY, Floats.roundToBf16(Float.POSITIVE_INFINITY), 0f);
        assertEquals(Float.POSITIVE_INFINITY, Floats.roundToBf16(Float.MAX_VALUE), 0f, "rounds past the largest bf16");
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(Floats.roundToBf16(-0f)));
    }

    @Test
    void roundingMatchesAnExactReferenceOnRandomValues() {
        Random r = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            float v = Float.intBitsToFloat(r.nextInt());
            if (Float.isNaN(v) || Float.isInfinite(v)) continue;
            float lo = Float.intBitsToFloat(Float.floatToRawIntBits(v) & 0xffff0000);
            float hi = Float.intBitsToFloat((Float.floatToRawIntBits(v) & 0xffff0000) + 0x10000);
            double dLo = Math.abs((double) v - lo);
            // past the largest finite bf16 the next step up is infinity, which sits at 2^128 for rounding purposes
            double hiValue = Float.isInfinite(hi) ? Math.copySign(Math.scalb(1.0, 128), hi) : hi;
            double dHi = Math.abs(hiValue - v);
            float want = dLo < dHi ? lo : dHi < dLo ? hi : ((Float.floatToRawIntBits(lo) >>> 16) & 1) == 0 ? lo : hi;
            assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(Floats.roundToBf16(v)), "value " + v);
        }
    }

    @Test
    void vectorWideningEqualsScalarWidening() {
        try (Arena arena = Arena.ofConfined()) {
            int n = 1000;
            MemorySegment s = arena.allocate(2L * n);
            Random r = new Random(3);
            for (int i = 0; i < n; i++) s.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) r.nextInt());
            for (int off : new int[] {0, 1, 17}) {
                float[] got = new float[n - off];
                Floats.bf16ToFloats(s, 2L * off, n - off, got, 0);
                for (int i = 0; i < n - off; i++) {
                    float want = Floats.bf16ToFloat(s.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, off + i));
                    assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(got[i]));
                }
            }
        }
    }

    @Test
    void backendStoresRoundOnceFromF32() {
        try (Backend backend = new JavaBackendProvider().create(BackendOptions.defaults());
             Tensor x = backend.fromFloats(new float[] {1f + 0x1p-8f, 1.0078125f + 0x1p-8f, 3.14159f}, Shape.of(3), DType.F32);
             Tensor b = backend.ops().astype(x, DType.BF16);
             Tensor h = backend.ops().astype(x, DType.F16)) {
            float[] bv = backend.toFloats(b);
            assertEquals(1.0f, bv[0], 0f);
            assertEquals(1.015625f, bv[1], 0f);
            assertEquals(Floats.roundToBf16(3.14159f), bv[2], 0f);
            assertEquals(Float.float16ToFloat(Float.floatToFloat16(3.14159f)), backend.toFloats(h)[2], 0f);
        }
    }
}
