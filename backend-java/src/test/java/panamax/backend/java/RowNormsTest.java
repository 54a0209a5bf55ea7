package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.RowNorms;

/**
 * {@link RowNorms} sums a row's squares in the order its comment writes down, the same bits interpreted and compiled,
 * and scales each value by the scalar products.
 */
class RowNormsTest {
    private static final int V = FloatVector.SPECIES_PREFERRED.length();

    /** The documented order in scalar code: lane l of the low and high double vectors, lanes added in index order, then the tail. */
    private static double oracle(float[] v, int n) {
        int whole = n / V * V;
        double[] low = new double[V / 2], high = new double[V / 2];
        for (int i = 0; i < whole; i += V) {
            for (int l = 0; l < V / 2; l++) {
                low[l] += (double) v[i + l] * v[i + l];
                high[l] += (double) v[i + V / 2 + l] * v[i + V / 2 + l];
            }
        }
        double sum = 0;
        if (whole > 0) {
            for (int l = 0; l < V / 2; l++) sum += low[l] + high[l];
        }
        for (int i = whole; i < n; i++) sum += (double) v[i] * v[i];
        return sum;
    }

    @Test
    void sumsSquaresInTheDocumentedOrderBitForBit() {
        Random random = new Random(5);
        // many calls, so the JIT compiles the kernel part-way through: every result must still match
        for (int round = 0; round < 40_000; round++) {
            int n = 1 + random.nextInt(5 * V + 3);
            float[] v = new float[n];
            for (int i = 0; i < n; i++) v[i] = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(9) - 4));
            double want = oracle(v, n);
            double got = RowNorms.sumOfSquares(v, n);
            if (Double.doubleToRawLongBits(want) != Double.doubleToRawLongBits(got)) {
                assertEquals(want, got, 0d, "round " + round + ", n " + n);
            }
            // and it is the sum of squares
            double exact = 0;
            for (int i = 0; i < n; i++) exact += (double) v[i] * v[i];
            assertEquals(exact, got, 1e-12 * exact, "round " + round + ", n " + n);
        }
    }

    @Test
    void scalesEachValueByTheScalarProducts() {
        Random random = new Random(9);
        for (int round = 0; round < 20_000; round++) {
            int n = 1 + random.nextInt(4 * V + 5);
            float[] v = new float[n], w = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = (float) random.nextGaussian();
                w[i] = (float) random.nextGaussian();
            }
            float r = (float) random.nextGaussian();
            float[] weighted = v.clone(), plain = v.clone();
            RowNorms.scale(weighted, n, r, w);
            RowNorms.scale(plain, n, r, null);
            for (int i = 0; i < n; i++) {
                assertEquals(Float.floatToRawIntBits(v[i] * r * w[i]), Float.floatToRawIntBits(weighted[i]), "round " + round + ", value " + i);
                assertEquals(Float.floatToRawIntBits(v[i] * r), Float.floatToRawIntBits(plain[i]), "round " + round + ", value " + i + " without weights");
            }
        }
    }
}
