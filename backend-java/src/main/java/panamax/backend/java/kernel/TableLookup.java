package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Lookups of 4-byte elements in a small on-heap table (codebook centroids decoded per element):
 * a table of at most one vector's lanes is one register and each vector of indices one permute;
 * larger tables use vector gathers (the table stays in L1). Indices are range-checked in the same
 * pass. Stateless.
 *
 * <p>Both segments must be native, never {@code MemorySegment.ofArray}: the Vector API's segment
 * load and store paths are shared by every kernel of the backend, and once one call site has passed
 * them a heap segment C2 compiles all of them for either kind. A heap index segment here (the
 * warm-up's) made every weight matrix-vector kernel ~40 % slower (q8 [8192, 2048] on two cores:
 * 0.62 -> 0.90 ms; the 1B model's step 41 -> 55 ms).
 */
public final class TableLookup {
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private TableLookup() {
    }

    /** True when this machine's vectors hold at least 4 ints. */
    public static boolean supported() {
        return I.length() >= 4;
    }

    /**
     * Writes {@code table[ix]} for the {@code n} int indices at byte {@code ixByte} of {@code ix}
     * contiguously at byte {@code byteOff} of {@code dst} (little-endian). Returns the position of
     * the first index outside {@code [0, table.length)}, or −1 when all were in range (then every
     * element was written).
     */
    public static int lookup(int[] table, MemorySegment ix, long ixByte, int n, MemorySegment dst, long byteOff) {
        int bound = I.loopBound(n);
        int i = 0;
        int dim = table.length;
        if (dim <= I.length()) {
            int[] padded = java.util.Arrays.copyOf(table, I.length());
            IntVector tv = IntVector.fromArray(I, padded, 0);
            for (; i < bound; i += I.length()) {
                IntVector iv = IntVector.fromMemorySegment(I, ix, ixByte + 4L * i, ByteOrder.LITTLE_ENDIAN);
                if (iv.compare(VectorOperators.UGE, dim).anyTrue()) return firstBad(ix, ixByte, i, n, dim);
                iv.selectFrom(tv).intoMemorySegment(dst, byteOff + 4L * i, ByteOrder.LITTLE_ENDIAN);
            }
        } else {
            int[] lanes = new int[I.length()];
            for (; i < bound; i += I.length()) {
                IntVector iv = IntVector.fromMemorySegment(I, ix, ixByte + 4L * i, ByteOrder.LITTLE_ENDIAN);
                if (iv.compare(VectorOperators.UGE, dim).anyTrue()) return firstBad(ix, ixByte, i, n, dim);
                iv.intoArray(lanes, 0);
                IntVector.fromArray(I, table, 0, lanes, 0).intoMemorySegment(dst, byteOff + 4L * i, ByteOrder.LITTLE_ENDIAN);
            }
        }
        for (; i < n; i++) {
            int j = ix.get(U32, ixByte + 4L * i);
            if (Integer.compareUnsigned(j, dim) >= 0) return i;
            dst.set(U32, byteOff + 4L * i, table[j]);
        }
        return -1;
    }

    private static int firstBad(MemorySegment ix, long ixByte, int from, int n, int dim) {
        for (int i = from; i < n; i++) if (Integer.compareUnsigned(ix.get(U32, ixByte + 4L * i), dim) >= 0) return i;
        return -1;
    }
}
