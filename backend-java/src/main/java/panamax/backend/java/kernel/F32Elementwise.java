package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import panamax.api.tensor.BinaryOp;

/**
 * Binary ops on two f32 runs of equal length straight between segments, a vector at a time: the same IEEE operation
 * per element as the copy-through-arrays loop (max and min as {@link Math#max(float, float)} and
 * {@link Math#min(float, float)}), without copying either operand into an array and the result back out. Stateless.
 */
public final class F32Elementwise {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;

    private F32Elementwise() {
    }

    /** Whether {@link #binary} computes {@code op}: every op but {@code POW}, whose double path stays in the loop it has. */
    public static boolean supports(BinaryOp op) {
        return op != BinaryOp.POW;
    }

    /**
     * {@code d[i] = op(a[i], b[i])} for elements {@code [from, to)}, element i at byte {@code off + 4·i} of its segment.
     */
    public static void binary(BinaryOp op, MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                              int from, int to) {
        int i = from;
        int upper = from + S.loopBound(to - from);
        // one loop per op, so each vector op is a constant the JIT compiles to its instruction
        switch (op) {
            case ADD -> { for (; i < upper; i += S.length()) load(a, aOff, i).add(load(b, bOff, i)).intoMemorySegment(d, dOff + 4L * i, LE); }
            case SUB -> { for (; i < upper; i += S.length()) load(a, aOff, i).sub(load(b, bOff, i)).intoMemorySegment(d, dOff + 4L * i, LE); }
            case MUL -> { for (; i < upper; i += S.length()) load(a, aOff, i).mul(load(b, bOff, i)).intoMemorySegment(d, dOff + 4L * i, LE); }
            case DIV -> { for (; i < upper; i += S.length()) load(a, aOff, i).div(load(b, bOff, i)).intoMemorySegment(d, dOff + 4L * i, LE); }
            case MAXIMUM -> { for (; i < upper; i += S.length()) load(a, aOff, i).max(load(b, bOff, i)).intoMemorySegment(d, dOff + 4L * i, LE); }
            case MINIMUM -> { for (; i < upper; i += S.length()) load(a, aOff, i).min(load(b, bOff, i)).intoMemorySegment(d, dOff + 4L * i, LE); }
            case POW -> throw new IllegalArgumentException("pow takes the double path");
        }
        for (; i < to; i++) {
            float x = a.get(F32, aOff + 4L * i), y = b.get(F32, bOff + 4L * i);
            d.set(F32, dOff + 4L * i, switch (op) {
                case ADD -> x + y;
                case SUB -> x - y;
                case MUL -> x * y;
                case DIV -> x / y;
                case MAXIMUM -> Math.max(x, y);
                case MINIMUM -> Math.min(x, y);
                case POW -> throw new IllegalArgumentException("pow takes the double path");
            });
        }
    }

    private static FloatVector load(MemorySegment s, long off, int i) {
        return FloatVector.fromMemorySegment(S, s, off + 4L * i, LE);
    }
}
