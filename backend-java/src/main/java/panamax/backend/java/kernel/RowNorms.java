package panamax.backend.java.kernel;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The row arithmetic of RMS normalization, a vector at a time. A row's sum of squares was one chain of double adds,
 * bound by the add's latency (d = 256: ~1,000 cycles a row; the demo model's 512-token prefill spent 6.6 % of its CPU
 * samples there, over 33 k rows of 256 and 64 values). Here each lane of two double vectors takes every
 * {@code 2·lanes}-th square; the lanes are then added in index order and the tail last, so a row's sum depends on
 * its values and the vector width alone, never on the batch or the row's place.
 */
public final class RowNorms {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final int V = S.length();

    private RowNorms() {
    }

    /** Σ v[i]² over [0, n) in double (each square exact), in the order the class comment gives. */
    public static double sumOfSquares(float[] v, int n) {
        int bound = S.loopBound(n);
        DoubleVector low = DoubleVector.zero(D), high = DoubleVector.zero(D);
        for (int i = 0; i < bound; i += V) {
            FloatVector x = FloatVector.fromArray(S, v, i);
            DoubleVector a = (DoubleVector) x.convertShape(VectorOperators.F2D, D, 0);
            DoubleVector b = (DoubleVector) x.convertShape(VectorOperators.F2D, D, 1);
            low = a.fma(a, low);
            high = b.fma(b, high);
        }
        double sum = 0;
        if (bound > 0) {
            DoubleVector lanes = low.add(high);
            for (int l = 0; l < D.length(); l++) sum += lanes.lane(l);
        }
        for (int i = bound; i < n; i++) sum += (double) v[i] * v[i];
        return sum;
    }

    /** {@code v[i] = v[i]·r·w[i]} over [0, n) ({@code w} null: 1), each value's two products in that order. */
    public static void scale(float[] v, int n, float r, float[] w) {
        int bound = S.loopBound(n);
        if (w == null) {
            for (int i = 0; i < bound; i += V) FloatVector.fromArray(S, v, i).mul(r).intoArray(v, i);
            for (int i = bound; i < n; i++) v[i] = v[i] * r;
            return;
        }
        for (int i = 0; i < bound; i += V) FloatVector.fromArray(S, v, i).mul(r).mul(FloatVector.fromArray(S, w, i)).intoArray(v, i);
        for (int i = bound; i < n; i++) v[i] = v[i] * r * w[i];
    }
}
