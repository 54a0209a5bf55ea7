package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A handle on a strided view of {@link Storage}: {@code element(i0..in) = offset + Σ ik·strides[k]}
 * (in elements of {@code dtype}). Each handle holds one storage reference, released by
 * {@link #close()}; views made from it retain their own. Metadata is immutable.
 */
final class JavaTensor implements Tensor {
    final JavaBackend backend;
    final Storage storage;
    final Shape shape;
    final int[] dims;
    final long[] strides;
    final long offset;
    final DType dtype;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Takes over one reference of {@code storage}. */
    JavaTensor(JavaBackend backend, Storage storage, int[] dims, long[] strides, long offset, DType dtype) {
        this.backend = backend;
        this.storage = storage;
        this.dims = dims;
        this.shape = new Shape(dims);
        this.strides = strides;
        this.offset = offset;
        this.dtype = dtype;
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
        if (closed.compareAndSet(false, true)) {
            storage.release();
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** The storage segment; throws when this handle is closed. */
    MemorySegment segment() {
        if (closed.get()) throw new IllegalStateException("tensor " + shape + " " + dtype + " is closed");
        return storage.segment();
    }

    /** A new handle over the same storage with other geometry. */
    JavaTensor view(int[] newDims, long[] newStrides, long newOffset) {
        segment();
        storage.retain();
        return new JavaTensor(backend, storage, newDims, newStrides, newOffset, dtype);
    }

    @Override
    public int rank() {
        return dims.length;
    }

    long elementCount() {
        long n = 1;
        for (int d : dims) n *= d;
        return n;
    }

    /** True when elements lie row-major without gaps starting at {@link #offset}. */
    boolean isContiguous() {
        long expected = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            if (dims[i] != 1 && strides[i] != expected) return false;
            expected *= dims[i];
        }
        return true;
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
        return "JavaTensor" + shape + " " + dtype + (closed.get() ? " (closed)" : "");
    }
}
