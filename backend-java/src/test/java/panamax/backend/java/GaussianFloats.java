package panamax.backend.java;

import java.util.Random;

/** Test inputs: floats drawn from a standard normal distribution, in the order {@code random} gives them. */
final class GaussianFloats {
    private GaussianFloats() {
    }

    static float[] of(Random random, int length) {
        float[] v = new float[length];
        for (int i = 0; i < length; i++) v[i] = (float) random.nextGaussian();
        return v;
    }
}
