package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
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
        if (i < to) { // the last, partial vector under a mask
            VectorMask<Float> in = S.indexInRange(i, to);
            FloatVector x = FloatVector.fromMemorySegment(S, a, aOff + 4L * i, LE, in), y = FloatVector.fromMemorySegment(S, b, bOff + 4L * i, LE, in);
            FloatVector r = switch (op) {
                case ADD -> x.add(y);
                case SUB -> x.sub(y);
                case MUL -> x.mul(y);
                case DIV -> x.div(y);
                case MAXIMUM -> x.max(y);
                case MINIMUM -> x.min(y);
                case POW -> throw new IllegalArgumentException("pow takes the double path");
            };
            r.intoMemorySegment(d, dOff + 4L * i, LE, in);
        }
    }

    private static FloatVector load(MemorySegment s, long off, int i) {
        return FloatVector.fromMemorySegment(S, s, off + 4L * i, LE);
    }
}
