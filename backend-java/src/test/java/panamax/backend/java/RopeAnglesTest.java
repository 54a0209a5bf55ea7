package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.RopeSpec;

/**
 * {@link RopeAngles} hands out the bits a rope call computes itself, whatever order positions are asked in, across
 * table growth, past its last position and for several specs at once.
 */
class RopeAnglesTest {
    /** The angles as written out directly: position × scale × the spec's inverse frequency, cos and sin rounded to f32. */
    private static float[][] direct(RopeSpec spec, long first, int count) {
        int half = spec.dims() / 2;
        float[] cos = new float[count * half];
        float[] sin = new float[count * half];
        for (int j = 0; j < count; j++) {
            for (int i = 0; i < half; i++) {
                double angle = (first + j) * spec.scale() * spec.inverseFrequency(i);
                cos[j * half + i] = (float) Math.cos(angle);
                sin[j * half + i] = (float) Math.sin(angle);
            }
        }
        return new float[][] {cos, sin};
    }

    @Test
    void specsEqualByValueShareATableAndDifferentFrequenciesDoNot() {
        RopeAngles angles = new RopeAngles();
        float[] freqs = {1f, 0.5f, 0.25f, 0.125f};
        float[] other = {1f, 0.5f, 0.25f, 0.0625f};
        for (int round = 0; round < 3; round++) {
            // a fresh array and spec each time, as a plugin building its spec per call would pass
            for (float[] f : new float[][] {freqs, other}) {
                RopeSpec spec = new RopeSpec(8, 10000, false, 1.0, Optional.of(f.clone()));
                float[] cos = new float[5 * 4];
                float[] sin = new float[5 * 4];
                angles.fill(spec, 100 + round, 5, cos, sin, 0);
                float[][] expected = direct(spec, 100 + round, 5);
                assertArrayEquals(expected[0], cos, "frequencies " + java.util.Arrays.toString(f));
                assertArrayEquals(expected[1], sin, "frequencies " + java.util.Arrays.toString(f));
            }
        }
        assertEquals(2, angles.tables(), "one table per distinct frequency array, however many equal specs were built");
    }

    @Test
    void everyRequestMatchesTheDirectComputationBitForBit() {
        RopeSpec plain = new RopeSpec(64, 10000, false, 1.0, Optional.empty());
        RopeSpec scaled = new RopeSpec(32, 1e6, true, 0.25, Optional.empty());
        float[] freqs = new float[8];
        for (int i = 0; i < freqs.length; i++) freqs[i] = (float) Math.pow(500000, -2.0 * i / 16) / (1 + i % 3);
        RopeSpec given = new RopeSpec(16, 500000, false, 1.0, Optional.of(freqs));
        RopeSpec[] specs = {plain, scaled, given};
        RopeAngles angles = new RopeAngles();
        Random random = new Random(11);
        // short runs first (the tables start small and double), then prefills, then positions past the tables' end
        long[][] requests = new long[60][];
        for (int r = 0; r < requests.length; r++) {
            long first = r < 20 ? random.nextInt(300) : r < 40 ? random.nextInt(6000) : RopeAngles.MAX_POSITIONS - 40 + random.nextInt(80);
            int count = r % 4 == 0 ? 1 + random.nextInt(600) : 1 + random.nextInt(8);
            requests[r] = new long[] {first, count};
        }
        for (long[] request : requests) {
            for (RopeSpec spec : specs) {
                int half = spec.dims() / 2;
                int count = (int) request[1];
                float[] cos = new float[3 + count * half];
                float[] sin = new float[3 + count * half];
                angles.fill(spec, request[0], count, cos, sin, 3);
                float[][] expected = direct(spec, request[0], count);
                String where = "positions " + request[0] + " + " + count + ", dims " + spec.dims();
                assertArrayEquals(expected[0], java.util.Arrays.copyOfRange(cos, 3, cos.length), where);
                assertArrayEquals(expected[1], java.util.Arrays.copyOfRange(sin, 3, sin.length), where);
                assertEquals(0f, cos[0], "nothing written before the given index");
            }
        }
    }
}
