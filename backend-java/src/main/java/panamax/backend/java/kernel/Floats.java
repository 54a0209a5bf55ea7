package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Scalar conversions between f32 and the 16-bit storage formats. bf16 is the top half of an f32;
 * storing rounds to nearest with ties to even and keeps NaN a (quiet) NaN.
 */
public final class Floats {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    /** Shorts with as many lanes as S has floats. */
    private static final VectorSpecies<Short> HALF = VectorSpecies.of(short.class, VectorShape.forBitSize(S.length() * 16));
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Floats() {
    }

    /** Widens {@code n} bf16 values at byte {@code byteOff} of {@code src} into {@code dst[dstOff...]}. */
    public static void bf16ToFloats(MemorySegment src, long byteOff, int n, float[] dst, int dstOff) {
        int bound = S.loopBound(n);
        int i = 0;
        for (; i < bound; i += S.length()) {
            ShortVector h = ShortVector.fromMemorySegment(HALF, src, byteOff + 2L * i, ByteOrder.LITTLE_ENDIAN);
            ((IntVector) h.convertShape(VectorOperators.S2I, IS, 0)).lanewise(VectorOperators.LSHL, 16)
                    .reinterpretAsFloats().intoArray(dst, dstOff + i);
        }
        for (; i < n; i++) dst[dstOff + i] = bf16ToFloat(src.get(I16, byteOff + 2L * i));
    }

    /** The f32 value of a bf16 bit pattern (exact). */
    public static float bf16ToFloat(short bits) {
        return Float.intBitsToFloat(bits << 16);
    }

    /** The nearest bf16 bit pattern to {@code value}, ties to even. */
    public static short floatToBf16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7fffffff) > 0x7f800000) return (short) ((bits >>> 16) | 0x40); // quiet NaN
        int rounded = bits + 0x7fff + ((bits >>> 16) & 1);
        return (short) (rounded >>> 16);
    }

    /** {@code value} rounded to bf16 and widened back. */
    public static float roundToBf16(float value) {
        return bf16ToFloat(floatToBf16(value));
    }

    /** {@code value} rounded to f16 and widened back. */
    public static float roundToF16(float value) {
        return Float.float16ToFloat(Float.floatToFloat16(value));
    }
}
