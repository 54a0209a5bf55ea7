package panamax.backend.java;

import panamax.api.tensor.MemoryCounter;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Optional;
import panamax.api.memory.PlainNativeSegments;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendCapabilities;
import panamax.api.tensor.DType;
import panamax.api.tensor.MemoryStats;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.KernelFamily;
import panamax.backend.java.kernel.Floats;
import panamax.backend.java.kernel.Parallel;

/**
 * The pure-Java backend: tensors on off-heap segments, kernels on a private worker pool. Created by
 * {@link JavaBackendProvider}; owned by its creator, who closes it after its tensors. Thread-safe.
 */
final class JavaBackend implements Backend {
    /** A never-started thread: a segment it may access is accessible from every thread. */
    private static final Thread NOT_THE_OWNER = Thread.ofPlatform().unstarted(() -> { });

    private final BackendCapabilities capabilities;
    private final MemoryCounter accounting = new MemoryCounter();
    /** Recycled buffers: 256 MiB unless {@code extra pool.bytes} says otherwise. */
    private final SegmentPool pool;
    final Parallel parallel;
    private final JavaOps ops;
    private final JavaCodebookKernels codebookKernels;
    private final JavaKvAttention kvAttention;

    JavaBackend(BackendCapabilities capabilities, int threads, long poolBytes) {
        this.capabilities = capabilities;
        this.pool = new SegmentPool(poolBytes);
        this.parallel = new Parallel(threads);
        this.ops = new JavaOps(this);
        CodebookOps codebook = new CodebookOps(this, ops.views());
        this.codebookKernels = new JavaCodebookKernels(this, codebook);
        this.kvAttention = new JavaKvAttention(this, ops.quant(), codebook);
        panamax.backend.java.kernel.Warmup.startOnce();
    }

    @Override
    public String name() {
        return JavaBackendProvider.ID;
    }

    @Override
    public BackendCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public Ops ops() {
        return ops;
    }

    /** The kernel families {@link JavaBackendProvider} declares: all three. */
    @Override
    public <K extends KernelFamily> Optional<K> kernel(Class<K> family) {
        Object kernels = family == CodebookKernels.class ? codebookKernels
                : family == AffineKvKernels.class || family == CodebookAttentionKernels.class ? kvAttention : null;
        return Optional.ofNullable(family.cast(kernels));
    }

    /** A new contiguous tensor with undefined contents (the caller writes every element), owned by the caller. */
    JavaTensor allocate(int[] dims, DType dtype) {
        long n = 1;
        for (int d : dims) n *= d;
        Storage storage = Storage.allocate(accounting, pool, n * dtype.byteSize());
        return new JavaTensor(this, storage, dims.clone(), JavaTensor.rowMajorStrides(dims), 0, dtype);
    }

    /** A new zero-filled contiguous tensor, owned by the caller. */
    JavaTensor allocateZeroed(int[] dims, DType dtype) {
        JavaTensor t = allocate(dims, dtype);
        t.segment().fill((byte) 0);
        return t;
    }

    /** Checks that {@code t} is an open tensor of this backend; {@code name} names the parameter. */
    JavaTensor check(Tensor t, String name) {
        Objects.requireNonNull(t, name);
        if (!(t instanceof JavaTensor jt) || jt.backend != this) {
            throw new IllegalArgumentException(name + ": expected a tensor of this java backend, found " + t);
        }
        if (jt.isClosed()) throw new IllegalStateException(name + ": tensor " + jt.shape + " " + jt.dtype + " is closed");
        return jt;
    }

    @Override
    public Tensor fromFloats(float[] data, Shape shape, DType dtype) {
        Objects.requireNonNull(data, "data");
        if (!dtype.isFloating()) throw new IllegalArgumentException("dtype: expected a floating dtype, found " + dtype);
        checkSize(data.length, shape);
        JavaTensor t = allocate(shape.dims(), dtype);
        MemorySegment s = t.segment();
        switch (dtype) {
            case F32 -> MemorySegment.copy(data, 0, s, RowIo.F32, 0, data.length);
            case BF16 -> {
                for (int i = 0; i < data.length; i++) s.setAtIndex(RowIo.I16, i, Floats.floatToBf16(data[i]));
            }
            default -> {
                for (int i = 0; i < data.length; i++) s.setAtIndex(RowIo.I16, i, Float.floatToFloat16(data[i]));
            }
        }
        return t;
    }

    @Override
    public Tensor fromInts(int[] data, Shape shape, DType dtype) {
        Objects.requireNonNull(data, "data");
        checkSize(data.length, shape);
        JavaTensor t = allocate(shape.dims(), dtype);
        MemorySegment s = t.segment();
        for (int i = 0; i < data.length; i++) {
            if (dtype.isFloating()) RowIo.setFloat(s, dtype, i, data[i]);
            else RowIo.setLong(s, dtype, i, data[i]);
        }
        return t;
    }

    @Override
    public Tensor fromSegment(MemorySegment data, Shape shape, DType dtype) {
        Objects.requireNonNull(data, "data");
        long expected = shape.size() * dtype.byteSize();
        if (data.byteSize() != expected) {
            throw new IllegalArgumentException("data: expected " + expected + " bytes for " + shape + " " + dtype
                    + ", found " + data.byteSize());
        }
        int[] dims = shape.dims();
        // wrap only memory the worker threads may read: a thread-confined segment is copied
        if (data.isNative() && data.isAccessibleBy(NOT_THE_OWNER)) {
            // a mapped file's segment class next to the native ones slows every kernel: see PlainNativeSegments
            return new JavaTensor(this, Storage.wrap(accounting, PlainNativeSegments.of(data)), dims, JavaTensor.rowMajorStrides(dims), 0, dtype);
        }
        JavaTensor t = allocate(dims, dtype);
        MemorySegment.copy(data, 0, t.segment(), 0, expected);
        return t;
    }

    private static void checkSize(int length, Shape shape) {
        if (length != shape.size()) {
            throw new IllegalArgumentException("data: expected " + shape.size() + " values for shape " + shape + ", found " + length);
        }
    }

    @Override
    public void eval(Tensor... tensors) {
        for (Tensor t : tensors) check(t, "tensors");
    }

    @Override
    public float[] toFloats(Tensor tensor) {
        JavaTensor t = check(tensor, "tensor");
        long n = t.elementCount();
        if (n > Integer.MAX_VALUE) throw new IllegalArgumentException("tensor too large for a float[]: " + t.shape);
        float[] out = new float[(int) n];
        MemorySegment s = t.segment();
        StridedLoop loop = new StridedLoop(t.dims, new long[] {t.offset}, t.strides);
        long stride = loop.innerStrides[0];
        float[] buf = new float[loop.runLength()];
        int[] pos = {0};
        loop.runUnits(0, loop.units(), (base, len) -> {
            RowIo.load(s, t.dtype, base[0], stride, len, buf);
            System.arraycopy(buf, 0, out, pos[0], len);
            pos[0] += len;
        });
        return out;
    }

    @Override
    public int[] toInts(Tensor tensor) {
        JavaTensor t = check(tensor, "tensor");
        long n = t.elementCount();
        if (n > Integer.MAX_VALUE) throw new IllegalArgumentException("tensor too large for an int[]: " + t.shape);
        int[] out = new int[(int) n];
        MemorySegment s = t.segment();
        StridedLoop loop = new StridedLoop(t.dims, new long[] {t.offset}, t.strides);
        long stride = loop.innerStrides[0];
        long[] buf = new long[loop.runLength()];
        int[] pos = {0};
        loop.runUnits(0, loop.units(), (base, len) -> {
            RowIo.load(s, t.dtype, base[0], stride, len, buf);
            for (int i = 0; i < len; i++) out[pos[0] + i] = (int) buf[i];
            pos[0] += len;
        });
        return out;
    }

    @Override
    public MemoryStats memoryStats() {
        return accounting.stats();
    }

    @Override
    public void resetPeakMemory() {
        accounting.resetPeak();
    }

    @Override
    public void close() {
        parallel.close();
        pool.close();
    }
}
