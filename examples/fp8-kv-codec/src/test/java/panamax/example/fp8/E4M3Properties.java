package panamax.example.fp8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.floats;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.Test;

class E4M3Properties {
    /** Every finite magnitude of the format, by brute force over the 126 positive finite codes. */
    private static float nearestByBruteForce(float a) {
        float best = 0;
        for (int c = 0; c <= 0x7E; c++) {
            float v = E4M3.decode(c);
            if (Math.abs(v - a) < Math.abs(best - a)) best = v;
        }
        return best;
    }

    @Test
    void normalValuesRoundTripWithinOneSixteenthOfTheirMagnitude() {
        qt().forAll(floats().between(E4M3.MIN_NORMAL, E4M3.MAX), integers().between(0, 1)).checkAssert((a, negative) -> {
            float v = negative == 1 ? -a : a;
            float back = E4M3.decode(E4M3.encode(v));
            assertTrue(Math.abs(back - v) <= 0x1p-4f * Math.abs(v), v + " came back as " + back);
            assertEquals(Math.signum(v), Math.signum(back));
        });
    }

    @Test
    void subnormalValuesRoundTripWithinHalfASubnormalStep() {
        qt().forAll(floats().between(0f, E4M3.MIN_NORMAL)).checkAssert(v -> {
            float back = E4M3.decode(E4M3.encode(v));
            assertTrue(Math.abs(back - v) <= E4M3.SUBNORMAL_STEP / 2, v + " came back as " + back);
        });
    }

    @Test
    void encodingPicksTheNearestRepresentableValue() {
        qt().forAll(floats().between(0f, E4M3.MAX)).checkAssert(v -> {
            float back = E4M3.decode(E4M3.encode(v));
            float nearest = nearestByBruteForce(v);
            assertEquals(Math.abs(nearest - v), Math.abs(back - v), 0f, "for " + v);
        });
    }

    @Test
    void everyFiniteCodeDecodesAndEncodesBackToItself() {
        for (int code = 0; code < 256; code++) {
            float v = E4M3.decode(code);
            if (Float.isNaN(v)) {
                assertEquals(0x7F, code & 0x7F);
                continue;
            }
            assertEquals(code, E4M3.encode(v), "code " + code + " = " + v);
        }
    }

    @Test
    void tiesGoToTheEvenMantissaAndLargeValuesSaturate() {
        assertEquals(1f, E4M3.decode(E4M3.encode(1f + 1f / 16)));      // between 1 and 1.125
        assertEquals(1.25f, E4M3.decode(E4M3.encode(1f + 3f / 16)));   // between 1.125 and 1.25
        assertEquals(448f, E4M3.decode(E4M3.encode(432f)));            // between 416 and 448
        assertEquals(448f, E4M3.decode(E4M3.encode(1e6f)));
        assertEquals(-448f, E4M3.decode(E4M3.encode(Float.NEGATIVE_INFINITY)));
        assertEquals(0f, E4M3.decode(E4M3.encode(0x1p-10f)));           // half the smallest subnormal: tie to 0
        assertEquals(0x1p-8f, E4M3.decode(E4M3.encode(3 * 0x1p-10f)));  // 1.5 steps: tie to 2 steps
        assertTrue(Float.isNaN(E4M3.decode(E4M3.encode(Float.NaN))));
    }
}
