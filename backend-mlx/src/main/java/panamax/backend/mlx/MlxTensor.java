package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.mlx_as_strided;
import static panamax.backend.mlx.c.MlxC.mlx_astype;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A handle on a strided view of a {@link Root}: element {@code (i0..in)} is the root's flat
 * element {@code offset + Σ ik·strides[k]}. Views (slice, transpose, broadcast, reshape of a
 * contiguous view) are new handles on the same root, so an in-place write through any handle is
 * seen by all. Each handle holds one root reference, released by {@link #close()}. Metadata is
 * immutable; closing is not concurrent with use.
 */
final class MlxTensor implements Tensor {
    final MlxBackend backend;
    final Root root;
    final int[] dims;
    final long[] strides;
    final long offset;
    final DType dtype;
    private final Shape shape;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Takes over one reference of {@code root}. */
    MlxTensor(MlxBackend backend, Root root, int[] dims, long[] strides, long offset) {
        this.backend = backend;
        this.root = root;
        this.dims = dims;
        this.strides = strides;
        this.offset = offset;
        this.dtype = root.dtype;
        this.shape = new Shape(dims);
    }

    @Override
    public Shape shape() {
        return shape;
    }

    @Override
    public DType dtype() {
        return dtype;
    }

    @Override
    public Backend backend() {
        return backend;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) root.release();
    }

    boolean isClosed() {
        return closed.get();
    }

    /** A new handle on the same root with other geometry, owned by the caller. */
    MlxTensor view(int[] newDims, long[] newStrides, long newOffset) {
        root.retain();
        return new MlxTensor(backend, root, newDims, newStrides, newOffset);
    }

    /** True when this handle sees the whole root in its own order. */
    boolean isWholeRoot() {
        return offset == 0 && java.util.Arrays.equals(dims, root.dims) && isContiguous();
    }

    /** True when elements lie row-major without gaps from {@link #offset}. */
    boolean isContiguous() {
        long expected = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            if (dims[i] != 1 && strides[i] != expected) return false;
            expected *= dims[i];
        }
        return true;
    }

    @Override
    public long size() {
        long n = 1;
        for (int d : dims) n *= d;
        return n;
    }

    /**
     * This view as an MLX array: the root's array itself (borrowed) when the view is the whole
     * root, else an {@code as_strided} view of it owned by {@code temps}. Call under {@link Mlx#LOCK}.
     */
    MemorySegment array(Temps temps) {
        if (closed.get()) throw new IllegalStateException("tensor " + shape + " " + dtype + " is closed");
        if (isWholeRoot()) return root.array();
        return temps.call("as_strided", r -> mlx_as_strided(r, root.array(), Mlx.ints(temps.arena, dims), dims.length,
                Mlx.longs(temps.arena, strides), strides.length, offset, backend.stream()));
    }

    /**
     * This view with f32 values: for a view of mapped 16-bit weights, the same view of the root's
     * cached f32 copy ({@link Root#widened}); otherwise {@link #array} converted. Owned by
     * {@code temps} where new. Call under {@link Mlx#LOCK}.
     */
    MemorySegment f32Array(Temps temps) {
        if (dtype == DType.F32 || !dtype.isFloating()) return array(temps);
        if (closed.get()) throw new IllegalStateException("tensor " + shape + " " + dtype + " is closed");
        if (!root.isMapped()) {
            MemorySegment a = array(temps);
            return temps.call("astype", r -> mlx_astype(r, a, Mlx.code(DType.F32), backend.stream()));
        }
        MemorySegment wide = root.widened(backend.stream());
        if (isWholeRoot()) return wide;
        return temps.call("as_strided", r -> mlx_as_strided(r, wide, Mlx.ints(temps.arena, dims), dims.length,
                Mlx.longs(temps.arena, strides), strides.length, offset, backend.stream()));
    }

    /** Row-major strides for {@code dims}. */
    static long[] rowMajorStrides(int[] dims) {
        long[] s = new long[dims.length];
        long acc = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= dims[i];
        }
        return s;
    }

    @Override
    public String toString() {
        return "MlxTensor" + shape + " " + dtype + (closed.get() ? " (closed)" : "");
    }
}
