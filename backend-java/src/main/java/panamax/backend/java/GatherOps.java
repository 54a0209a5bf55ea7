package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.TableLookup;

/**
 * Index-driven data movement: take, take/put along an axis, slice update (results are new
 * tensors) and the in-place writes {@code writeSlice} / {@code writeAlongAxis}, which mutate a
 * target the caller owns exclusively.
 */
final class GatherOps {
    private final JavaBackend backend;
    private final ViewOps views;

    GatherOps(JavaBackend backend, ViewOps views) {
        this.backend = backend;
        this.views = views;
    }

    /** The indices as longs in row-major order; they must be an integer dtype. */
    static long[] indices(JavaTensor idx, String op) {
        if (idx.dtype.isFloating()) throw new IllegalArgumentException(op + ": indices must be an integer dtype, found " + idx.dtype);
        int[] v = idx.backend.toInts(idx);
        long[] out = new long[v.length];
        boolean unsigned = idx.dtype == DType.U32;
        for (int i = 0; i < v.length; i++) out[i] = unsigned ? v[i] & 0xffffffffL : v[i];
        return out;
    }

    private static void checkIndex(long i, int dim, String op, JavaTensor x, int axis) {
        if (i < 0 || i >= dim) {
            throw new IndexOutOfBoundsException(op + ": index " + i + " out of range [0, " + dim + ") on axis " + axis + " of " + x.shape);
        }
    }

    JavaTensor take(JavaTensor x, JavaTensor idx, int axis) {
        int a = x.shape.normalizeAxis(axis);
        if (idx.dtype.isFloating()) throw new IllegalArgumentException("take: indices must be an integer dtype, found " + idx.dtype);
        // U32 indices of 2³¹ or more read as negative ints: out of range either way
        int[] ix = idx.backend.toInts(idx);
        for (int i : ix) if (Integer.compareUnsigned(i, x.dims[a]) >= 0) checkIndex(idx.dtype == DType.U32 ? i & 0xffffffffL : i, x.dims[a], "take", x, axis);
        int[] dims = new int[x.rank() - 1 + idx.rank()];
        System.arraycopy(x.dims, 0, dims, 0, a);
        System.arraycopy(idx.dims, 0, dims, a, idx.rank());
        System.arraycopy(x.dims, a + 1, dims, a + idx.rank(), x.rank() - a - 1);
        JavaTensor out = backend.allocate(dims, x.dtype);
        int[] innerDims = Arrays.copyOfRange(x.dims, a + 1, x.rank());
        long[] innerStrides = Arrays.copyOfRange(x.strides, a + 1, x.rank());
        long innerCount = 1;
        for (int d : innerDims) innerCount *= d;
        StridedLoop inner = new StridedLoop(innerDims, new long[] {0, 0}, innerStrides, JavaTensor.rowMajorStrides(innerDims));
        long ss = inner.innerStrides[0];
        long ds = inner.innerStrides[1];
        int bytes = x.dtype.byteSize();
        MemorySegment s = x.segment();
        MemorySegment d = out.segment();
        int[] outerDims = Arrays.copyOf(x.dims, a);
        long outer = 1;
        for (int v : outerDims) outer *= v;
        long items = outer * ix.length; // one (outer index, index) pair copies one inner block
        if (items > Integer.MAX_VALUE) throw new IllegalArgumentException("take: result too large: " + out.shape);
        long axisStride = x.strides[a];
        long count = innerCount;
        if (count == 1 && outer == 1 && bytes == 4 && TableLookup.supported()) {
            // a 1-D table read per element (e.g. centroids by code): vector lookups over the index array
            int[] table = new int[x.dims[a]];
            for (int j = 0; j < table.length; j++) table[j] = s.getAtIndex(RowIo.I32, x.offset + j * axisStride);
            // staged in the backend's native memory (pooled, freed at once), never MemorySegment.ofArray:
            // see TableLookup on heap segments
            try (JavaTensor staged = backend.allocate(new int[] {ix.length}, DType.I32)) {
                MemorySegment ixs = staged.segment();
                long at = 4L * staged.offset;
                MemorySegment.copy(ix, 0, ixs, RowIo.I32, at, ix.length);
                backend.parallel.forEvenSplit(ix.length, 1 << 14, (from, to) -> TableLookup.lookup(table, ixs, at + 4L * from, to - from, d, 4L * from));
            }
            return out;
        }
        long grain = Math.max(1, (1L << 14) / Math.max(1, innerCount));
        backend.parallel.forRange((int) items, (int) Math.min(Integer.MAX_VALUE, grain), (from, to) -> {
            long[] shift = new long[2];
            for (int item = from; item < to; item++) {
                long o = item / ix.length;
                int k = (int) (item % ix.length);
                long xBase = x.offset;
                long rest = o;
                for (int i = a - 1; i >= 0; i--) {
                    xBase += (rest % outerDims[i]) * x.strides[i];
                    rest /= outerDims[i];
                }
                long src = xBase + ix[k] * axisStride;
                long dst = (long) item * count;
                if (count == 1) { // element gathers (small tables): no per-element run set-up
                    switch (bytes) {
                        case 4 -> d.setAtIndex(RowIo.I32, dst, s.getAtIndex(RowIo.I32, src));
                        case 2 -> d.setAtIndex(RowIo.I16, dst, s.getAtIndex(RowIo.I16, src));
                        default -> d.set(RowIo.I8, dst, s.get(RowIo.I8, src));
                    }
                } else {
                    shift[0] = src;
                    shift[1] = dst;
                    inner.runAll(shift, (base, n) -> RowIo.copyRaw(s, base[0], ss, d, base[1], ds, n, bytes));
                }
            }
        });
        return out;
    }

    JavaTensor takeAlongAxis(JavaTensor x, JavaTensor idx, int axis) {
        int a = x.shape.normalizeAxis(axis);
        if (idx.rank() != x.rank()) {
            throw new IllegalArgumentException("takeAlongAxis: indices rank must equal x rank: " + idx.shape + " vs " + x.shape);
        }
        if (idx.dtype.isFloating()) throw new IllegalArgumentException("takeAlongAxis: indices must be an integer dtype, found " + idx.dtype);
        int[] dims = new int[x.rank()];
        for (int i = 0; i < dims.length; i++) {
            if (i == a) dims[i] = idx.dims[i];
            else if (x.dims[i] == idx.dims[i] || idx.dims[i] == 1) dims[i] = x.dims[i];
            else if (x.dims[i] == 1) dims[i] = idx.dims[i];
            else throw new IllegalArgumentException("takeAlongAxis: shapes do not broadcast off axis " + axis + ": " + x.shape + " and " + idx.shape);
        }
        JavaTensor out = backend.allocate(dims, x.dtype);
        long[] xs = new long[dims.length];
        long[] is = new long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            xs[i] = i == a || x.dims[i] == 1 ? 0 : x.strides[i];
            is[i] = idx.dims[i] == 1 ? 0 : idx.strides[i];
        }
        try {
            boolean table = true; // x varies only along the axis: a small lookup table
            for (int i = 0; i < dims.length; i++) table &= xs[i] == 0;
            if (table && x.dtype.byteSize() == 4 && GatherKernels.supported()) {
                int[] values = new int[x.dims[a]];
                MemorySegment s = x.segment();
                for (int j = 0; j < values.length; j++) values[j] = s.getAtIndex(RowIo.I32, x.offset + j * x.strides[a]);
                StridedLoop loop = new StridedLoop(dims, new long[] {idx.offset, 0}, is, out.strides);
                GatherKernels.lookup(backend.parallel, loop, out.elementCount(), values, idx, out, axis, x.shape);
            } else if (runLength(x, dims, is, a) > 1) {
                gatherRuns(x, idx, out, dims, is, a, axis);
            } else {
                gatherElements(x, idx, out, dims, xs, is, a, axis);
            }
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
        return out;
    }

    /**
     * Elements each index of a takeAlongAxis moves as one contiguous run, or 0: the index must not vary along the axes
     * after {@code a} (a broadcast index, as a KV layout's column remap is: one source column per row and position, the
     * same for every head's values) and x must be contiguous and unbroadcast over them.
     */
    private static long runLength(JavaTensor x, int[] dims, long[] is, int a) {
        long run = 1;
        for (int i = dims.length - 1; i > a; i--) {
            if (is[i] != 0 || x.dims[i] != dims[i] || dims[i] != 1 && x.strides[i] != run) return 0;
            run *= dims[i];
        }
        return run;
    }

    /**
     * takeAlongAxis where each index moves a contiguous run ({@link #runLength}): one bulk copy per run, and
     * consecutive indices whose runs lie end to end in x (a row's columns shifted as a block) as one copy, where the
     * general path copied element by element. Parallel over the positions before the axis.
     */
    private void gatherRuns(JavaTensor x, JavaTensor idx, JavaTensor out, int[] dims, long[] is, int a, int axis) {
        long run = runLength(x, dims, is, a);
        long outer = 1;
        for (int i = 0; i < a; i++) outer *= dims[i];
        if (outer > Integer.MAX_VALUE) throw new IllegalArgumentException("takeAlongAxis: result too large: " + out.shape);
        MemorySegment s = x.segment();
        MemorySegment si = idx.segment();
        MemorySegment d = out.segment();
        int bytes = x.dtype.byteSize();
        int axisDim = x.dims[a], positions = dims[a];
        long axisStride = x.strides[a];
        boolean adjacent = axisStride == run; // runs of consecutive indices lie end to end in x
        DType it = idx.dtype;
        int grain = (int) Math.max(1, (1L << 16) / Math.max(1, run * positions));
        backend.parallel.forRange((int) outer, grain, (from, to) -> {
            for (int o = from; o < to; o++) {
                long xBase = x.offset, iBase = idx.offset;
                long rest = o;
                for (int i = a - 1; i >= 0; i--) {
                    long c = rest % dims[i];
                    rest /= dims[i];
                    if (x.dims[i] != 1) xBase += c * x.strides[i];
                    iBase += c * is[i];
                }
                long dst = out.offset + (long) o * positions * run;
                int j = 0;
                while (j < positions) {
                    long first = RowIo.getLong(si, it, iBase + j * is[a]);
                    checkIndex(first, axisDim, "takeAlongAxis", x, axis);
                    int len = 1;
                    while (adjacent && j + len < positions && RowIo.getLong(si, it, iBase + (j + len) * is[a]) == first + len && first + len < axisDim) len++;
                    MemorySegment.copy(s, (xBase + first * axisStride) * bytes, d, (dst + (long) j * run) * bytes, len * run * bytes);
                    j += len;
                }
            }
        });
    }

    /** The general takeAlongAxis: element copies, parallel over runs of the output. */
    private void gatherElements(JavaTensor x, JavaTensor idx, JavaTensor out, int[] dims, long[] xs, long[] is, int a, int axis) {
        MemorySegment s = x.segment();
        MemorySegment si = idx.segment();
        MemorySegment d = out.segment();
        int bytes = x.dtype.byteSize();
        long axisStride = x.strides[a];
        int axisDim = x.dims[a];
        DType it = idx.dtype;
        StridedLoop loop = new StridedLoop(dims, new long[] {x.offset, idx.offset, 0}, xs, is, out.strides);
        long[] in = loop.innerStrides;
        loop.execute(backend.parallel, out.elementCount(), () -> (base, n) -> {
            for (int i = 0; i < n; i++) {
                long j = it == DType.I32 ? si.getAtIndex(RowIo.I32, base[1] + i * in[1]) : RowIo.getLong(si, it, base[1] + i * in[1]);
                checkIndex(j, axisDim, "takeAlongAxis", x, axis);
                long from = base[0] + i * in[0] + j * axisStride;
                long to = base[2] + i * in[2];
                switch (bytes) {
                    case 4 -> d.setAtIndex(RowIo.I32, to, s.getAtIndex(RowIo.I32, from));
                    case 2 -> d.setAtIndex(RowIo.I16, to, s.getAtIndex(RowIo.I16, from));
                    default -> d.set(RowIo.I8, to, s.get(RowIo.I8, from));
                }
            }
        });
    }

    JavaTensor putAlongAxis(JavaTensor x, JavaTensor idx, JavaTensor values, int axis) {
        JavaTensor out = views.copy(x);
        try {
            writeAlongAxis(out, idx, values, axis, "putAlongAxis");
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
        return out;
    }

    /** Writes {@code values} at {@code idx} along {@code axis} of {@code target} in place (see {@code Ops.writeAlongAxis}). */
    void writeAlongAxis(JavaTensor target, JavaTensor idx, JavaTensor values, int axis, String op) {
        int a = target.shape.normalizeAxis(axis);
        if (idx.rank() != target.rank()) {
            throw new IllegalArgumentException(op + ": indices rank must equal x rank: " + idx.shape + " vs " + target.shape);
        }
        if (idx.dtype.isFloating()) throw new IllegalArgumentException(op + ": indices must be an integer dtype, found " + idx.dtype);
        int[] dims = target.dims.clone();
        dims[a] = idx.dims[a];
        long[] is = ViewOps.broadcastStrides(idx, dims, op + " (indices)");
        long[] vs = ViewOps.broadcastStrides(values, dims, op + " (values)");
        long[] os = new long[dims.length];
        for (int i = 0; i < dims.length; i++) os[i] = i == a ? 0 : target.strides[i];
        MemorySegment si = idx.segment();
        MemorySegment sv = values.segment();
        MemorySegment d = writable(target, op);
        long axisStride = target.strides[a];
        int axisDim = target.dims[a];
        boolean integer = !target.dtype.isFloating() && !values.dtype.isFloating();
        boolean raw = target.dtype == values.dtype;
        int bytes = target.dtype.byteSize();
        DType td = target.dtype;
        StridedLoop loop = new StridedLoop(dims, new long[] {idx.offset, values.offset, target.offset}, is, vs, os);
        long[] in = loop.innerStrides;
        // indices are checked first so that a bad index leaves the target untouched
        loop.runAll(new long[3], (base, n) -> {
            for (int i = 0; i < n; i++) checkIndex(RowIo.getLong(si, idx.dtype, base[0] + i * in[0]), axisDim, op, target, axis);
        });
        loop.runAll(new long[3], (base, n) -> {
            for (int i = 0; i < n; i++) {
                long j = RowIo.getLong(si, idx.dtype, base[0] + i * in[0]);
                long at = base[2] + i * in[2] + j * axisStride;
                long v = base[1] + i * in[1];
                if (raw) RowIo.copyRaw(sv, v, 1, d, at, 1, 1, bytes);
                else if (integer) RowIo.setLong(d, td, at, DTypes.wrap(RowIo.getLong(sv, values.dtype, v), td));
                else RowIo.setFloat(d, td, at, RowIo.getFloat(sv, values.dtype, v));
            }
        });
    }

    JavaTensor sliceUpdate(JavaTensor x, JavaTensor update, int... starts) {
        checkFits(x, update, starts, "sliceUpdate");
        JavaTensor out = views.copy(x);
        writeSlice(out, update, starts, "sliceUpdate");
        return out;
    }

    /** Writes {@code update} into {@code target} at {@code starts} in place (see {@code Ops.writeSlice}). */
    void writeSlice(JavaTensor target, JavaTensor update, int[] starts, String op) {
        checkFits(target, update, starts, op);
        writable(target, op);
        long offset = target.offset;
        for (int i = 0; i < starts.length; i++) offset += starts[i] * target.strides[i];
        views.convertInto(update, target, offset, target.strides);
    }

    private static void checkFits(JavaTensor x, JavaTensor update, int[] starts, String op) {
        if (starts.length != x.rank() || update.rank() != x.rank()) {
            throw new IllegalArgumentException(op + ": expected rank " + x.rank() + " update and starts for " + x.shape
                    + ", found update " + update.shape + " and starts " + Arrays.toString(starts));
        }
        for (int i = 0; i < starts.length; i++) {
            if (starts[i] < 0 || starts[i] + update.dims[i] > x.dims[i]) {
                throw new IllegalArgumentException(op + ": update " + update.shape + " at " + Arrays.toString(starts)
                        + " does not fit in " + x.shape);
            }
        }
    }

    /** The target's segment after checking that an in-place write is well defined. */
    private static MemorySegment writable(JavaTensor target, String op) {
        for (int i = 0; i < target.rank() && target.elementCount() > 0; i++) {
            if (target.strides[i] == 0 && target.dims[i] > 1) {
                throw new IllegalArgumentException(op + ": target " + target.shape + " is a broadcast view (stride 0 on axis " + i
                        + "); write into a tensor that owns its elements");
            }
        }
        MemorySegment d = target.segment();
        if (d.isReadOnly()) throw new IllegalArgumentException(op + ": target " + target.shape + " is read-only (mapped) storage");
        target.storage.written();
        return d;
    }
}
