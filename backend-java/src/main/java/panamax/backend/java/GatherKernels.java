package panamax.backend.java;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.backend.java.kernel.Parallel;
import panamax.backend.java.kernel.TableLookup;

/**
 * Lookups of 4-byte elements from a small table (e.g. codebook centroids decoded per element):
 * indices are read a run at a time, range-checked, and gathered with vector gathers from an
 * on-heap copy of the table that stays in L1. Parallel over runs of the output. Stateless.
 */
final class GatherKernels {
    private GatherKernels() {
    }

    static boolean supported() {
        return TableLookup.supported();
    }

    /**
     * {@code out[i] = table[idx[i]]} (bit patterns) over {@code loop}'s operands (0: indices,
     * 1: output); an index outside the table throws, naming {@code axis} and {@code xShape}.
     */
    static void lookup(Parallel parallel, StridedLoop loop, long total, int[] table, JavaTensor idx, JavaTensor out, int axis,
                       Shape xShape) {
        MemorySegment si = idx.segment();
        MemorySegment d = out.segment();
        long[] in = loop.innerStrides;
        DType it = idx.dtype;
        int dim = table.length;
        boolean widen = it != DType.I32 || in[0] != 1; // indices of another dtype or layout: widened to a run of ints first
        boolean direct = in[1] == 1;                    // else looked up into a run, then scattered
        loop.execute(parallel, total, () -> {
            // only the scratch this op needs (none for contiguous i32 indices and output); native, never
            // MemorySegment.ofArray: see TableLookup on heap segments
            MemorySegment scratch = widen ? Arena.ofAuto().allocate(4L * StridedLoop.CHUNK, 64) : null;
            MemorySegment values = direct ? null : Arena.ofAuto().allocate(4L * StridedLoop.CHUNK, 64);
            return (base, n) -> {
                MemorySegment from = si;
                long fromByte = 4 * base[0];
                if (widen) {
                    for (int i = 0; i < n; i++) {
                        long j = RowIo.getLong(si, it, base[0] + i * in[0]);
                        scratch.setAtIndex(RowIo.I32, i, j < 0 || j >= dim ? -1 : (int) j);
                    }
                    from = scratch;
                    fromByte = 0;
                }
                int bad = TableLookup.lookup(table, from, fromByte, n, direct ? d : values, direct ? 4 * base[1] : 0);
                if (bad >= 0) {
                    throw new IndexOutOfBoundsException("takeAlongAxis: index " + RowIo.getLong(si, it, base[0] + bad * in[0])
                            + " out of range [0, " + dim + ") on axis " + axis + " of " + xShape);
                }
                if (!direct) for (int i = 0; i < n; i++) d.setAtIndex(RowIo.I32, base[1] + i * in[1], values.getAtIndex(RowIo.I32, i));
            };
        });
    }
}
