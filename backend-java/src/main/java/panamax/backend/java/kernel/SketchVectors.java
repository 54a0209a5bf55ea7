package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Row kernels of a 1-bit residual sketch (TurboQuant-prod's QJL signs), around the Hadamard blocks
 * that {@link HadamardVectors#transform} applies: the residual of a row against its codebook values,
 * its signs packed into bits, and those bits expanded back to two values. Rows are a multiple of 64.
 */
public final class SketchVectors {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int L = F.length();
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private SketchVectors() {
    }

    /**
     * {@code dst = row / d − approx} over n elements ({@code approx} null: none), by a division as the
     * composed op divides; returns {@code Σ dst²} in f32.
     */
    public static float residual(float[] row, int n, float d, float[] approx, float[] dst) {
        FloatVector sum = FloatVector.zero(F);
        FloatVector divisor = FloatVector.broadcast(F, d);
        for (int j = 0; j < n; j += L) {
            FloatVector v = FloatVector.fromArray(F, row, j).div(divisor);
            if (approx != null) v = v.sub(FloatVector.fromArray(F, approx, j));
            v.intoArray(dst, j);
            sum = v.fma(v, sum);
        }
        return Lanes.sum(sum);
    }

    /**
     * Bit j of the n bits at {@code byteOff} set where {@code row[j] > 0}: LSB-first little-endian words,
     * MLX's 1-bit packing (a NaN gives 0, as its code under a boundary of 0 would).
     */
    public static void signBits(float[] row, int n, MemorySegment dst, long byteOff) {
        for (int j0 = 0; j0 < n; j0 += 64) {
            long bits = 0;
            for (int j = 0; j < 64; j += L) {
                bits |= FloatVector.fromArray(F, row, j0 + j).compare(VectorOperators.GT, 0f).toLong() << j;
            }
            dst.set(U64, byteOff + j0 / 8, bits);
        }
    }

    /** {@code dst[j] = high} where bit j of the n bits at {@code byteOff} is set, {@code low} where it is not. */
    public static void expandSigns(MemorySegment src, long byteOff, int n, float low, float high, float[] dst) {
        FloatVector lows = FloatVector.broadcast(F, low);
        FloatVector highs = FloatVector.broadcast(F, high);
        for (int j0 = 0; j0 < n; j0 += 64) {
            long bits = src.get(U64, byteOff + j0 / 8);
            for (int j = 0; j < 64; j += L) {
                lows.blend(highs, VectorMask.fromLong(F, bits >>> j)).intoArray(dst, j0 + j);
            }
        }
    }

    /** {@code a[0..n) += b[0..n)}. */
    public static void add(float[] a, float[] b, int n) {
        for (int j = 0; j < n; j += L) FloatVector.fromArray(F, a, j).add(FloatVector.fromArray(F, b, j)).intoArray(a, j);
    }
}
