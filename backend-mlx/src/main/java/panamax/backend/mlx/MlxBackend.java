package panamax.backend.mlx;

import panamax.api.tensor.MemoryCounter;
import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendCapabilities;
import panamax.api.tensor.DType;
import panamax.api.tensor.MemoryStats;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * The MLX backend: every tensor is a view of an MLX array ({@link MlxTensor} over a {@link Root});
 * ops build MLX's lazy graph on one stream (cpu or gpu) and {@link #eval}, {@link #toFloats} and
 * {@link #toInts} compute it. Created by {@link MlxBackendProvider} after libmlxc loaded; owned by
 * its creator, who closes it after its tensors. Thread-safe: native calls are serialized.
 */
final class MlxBackend implements Backend {
    private final BackendCapabilities capabilities;
    private final MemoryCounter accounting = new MemoryCounter();
    private final MemorySegment stream;
    private final String device;
    private final MlxOps ops;
    private boolean closed;

    MlxBackend(BackendCapabilities capabilities, String device) {
        this.capabilities = capabilities;
        this.device = device;
        this.stream = locked(() -> MlxDevices.stream(device));
        this.ops = new MlxOps(this);
    }

    @Override
    public String name() {
        return MlxBackendProvider.ID;
    }

    @Override
    public BackendCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public Ops ops() {
        return ops;
    }

    /** The MLX stream every op of this backend runs on (borrowed). */
    MemorySegment stream() {
        return stream;
    }

    String device() {
        return device;
    }

    /** Runs {@code body} holding {@link Mlx#LOCK}. */
    <T> T locked(Supplier<T> body) {
        Mlx.LOCK.lock();
        try {
            return body.get();
        } finally {
            Mlx.LOCK.unlock();
        }
    }

    /** Checks that {@code t} is an open tensor of this backend; {@code name} names the parameter. */
    MlxTensor check(Tensor t, String name) {
        Objects.requireNonNull(t, name);
        if (!(t instanceof MlxTensor mt) || mt.backend != this) {
            throw new IllegalArgumentException(name + ": expected a tensor of this mlx backend, found " + t);
        }
        if (mt.isClosed()) throw new IllegalStateException(name + ": tensor " + mt.shape() + " " + mt.dtype + " is closed");
        return mt;
    }

    /** A new tensor over {@code array} (owned, taken over), whose shape and dtype MLX reports. */
    MlxTensor wrap(MemorySegment array) {
        int[] dims = Mlx.shape(array);
        Root root = new Root(array, dims, Mlx.dtype(array), accounting, false);
        return new MlxTensor(this, root, dims, MlxTensor.rowMajorStrides(dims), 0);
    }

    private MlxTensor fromBytes(MemorySegment bytes, Shape shape, DType dtype) {
        return locked(() -> {
            try (Arena arena = Arena.ofConfined()) {
                int[] dims = shape.dims();
                MemorySegment array = Mlx.checked(mlx_array_new_data(Mlx.structs(), bytes, Mlx.ints(arena, dims), dims.length, Mlx.code(dtype)),
                        "new_data");
                return wrap(array);
            }
        });
    }

    @Override
    public Tensor fromFloats(float[] data, Shape shape, DType dtype) {
        Objects.requireNonNull(data, "data");
        if (!dtype.isFloating()) throw new IllegalArgumentException("dtype: expected a floating dtype, found " + dtype);
        checkSize(data.length, shape);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate((long) Math.max(1, data.length) * dtype.byteSize(), 8);
            for (int i = 0; i < data.length; i++) HostValues.setFloat(s, dtype, i, data[i]);
            return fromBytes(s, shape, dtype);
        }
    }

    @Override
    public Tensor fromInts(int[] data, Shape shape, DType dtype) {
        Objects.requireNonNull(data, "data");
        checkSize(data.length, shape);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate((long) Math.max(1, data.length) * dtype.byteSize(), 8);
            for (int i = 0; i < data.length; i++) {
                if (dtype.isFloating()) HostValues.setFloat(s, dtype, i, data[i]);
                else HostValues.setInt(s, dtype, i, data[i]);
            }
            return fromBytes(s, shape, dtype);
        }
    }

    @Override
    public Tensor fromSegment(MemorySegment data, Shape shape, DType dtype) {
        Objects.requireNonNull(data, "data");
        long expected = shape.size() * dtype.byteSize();
        if (data.byteSize() != expected) {
            throw new IllegalArgumentException("data: expected " + expected + " bytes for " + shape + " " + dtype
                    + ", found " + data.byteSize());
        }
        // MLX may read the memory from its own threads later (lazily): only memory every thread may
        // read, such as a shared mapping of a weights file, is referenced in place; the rest is copied
        if (!data.isNative() || !data.isAccessibleBy(MlxDevices.NOT_THE_OWNER) || expected == 0) {
            return fromBytes(data, shape, dtype);
        }
        return locked(() -> {
            try (Arena arena = Arena.ofConfined()) {
                int[] dims = shape.dims();
                MemorySegment array = Mlx.checked(mlx_array_new_data_managed(Mlx.structs(), data, Mlx.ints(arena, dims), dims.length,
                        Mlx.code(dtype), MlxDevices.NO_OP_DESTRUCTOR), "new_data_managed");
                Root root = new Root(array, dims, dtype, accounting, true);
                return new MlxTensor(this, root, dims, MlxTensor.rowMajorStrides(dims), 0);
            }
        });
    }

    private static void checkSize(int length, Shape shape) {
        if (length != shape.size()) {
            throw new IllegalArgumentException("data: expected " + shape.size() + " values for shape " + shape + ", found " + length);
        }
    }

    @Override
    public void eval(Tensor... tensors) {
        List<MlxTensor> checked = new ArrayList<>(tensors.length);
        for (Tensor t : tensors) checked.add(check(t, "tensors"));
        if (checked.isEmpty()) return;
        locked(() -> {
            try (Temps temps = new Temps()) {
                List<MemorySegment> arrays = new ArrayList<>();
                for (MlxTensor t : checked) arrays.add(t.array(temps));
                MemorySegment vector = Mlx.vector(temps.arena, arrays);
                try {
                    MlxErrors.check(mlx_eval(vector), "eval");
                } finally {
                    mlx_vector_array_free(vector);
                }
                return null;
            }
        });
    }

    /** The values of {@code t} converted to {@code as} (F32 or an integer type), evaluated, row-major. */
    private MemorySegment hostCopy(MlxTensor t, DType as, Arena into) {
        return locked(() -> {
            try (Temps temps = new Temps()) {
                MemorySegment a = t.array(temps);
                if (t.dtype != as) {
                    MemorySegment in = a;
                    a = temps.call("astype", r -> mlx_astype(r, in, Mlx.code(as), stream));
                }
                MemorySegment in = a;
                MemorySegment c = temps.call("contiguous", r -> mlx_contiguous(r, in, false, stream));
                MlxErrors.check(mlx_array_eval(c), "eval");
                long bytes = t.size() * as.byteSize();
                MemorySegment data = switch (as) {
                    case F32 -> mlx_array_data_float32(c);
                    case I32 -> mlx_array_data_int32(c);
                    case U32 -> mlx_array_data_uint32(c);
                    default -> throw new IllegalArgumentException("host copies are F32, I32 or U32, found " + as);
                };
                MemorySegment out = into.allocate(Math.max(1, bytes), 8);
                if (bytes > 0) MemorySegment.copy(data.reinterpret(bytes), 0, out, 0, bytes);
                return out;
            }
        });
    }

    @Override
    public float[] toFloats(Tensor tensor) {
        MlxTensor t = check(tensor, "tensor");
        if (t.size() > Integer.MAX_VALUE) throw new IllegalArgumentException("tensor too large for a float[]: " + t.shape());
        if (t.size() == 0) return new float[0];
        try (Arena arena = Arena.ofConfined()) {
            return hostCopy(t, DType.F32, arena).asSlice(0, t.size() * 4).toArray(ValueLayout.JAVA_FLOAT);
        }
    }

    @Override
    public int[] toInts(Tensor tensor) {
        MlxTensor t = check(tensor, "tensor");
        if (t.size() > Integer.MAX_VALUE) throw new IllegalArgumentException("tensor too large for an int[]: " + t.shape());
        if (t.size() == 0) return new int[0];
        if (t.dtype.isFloating()) {
            float[] f = toFloats(t);
            int[] out = new int[f.length];
            for (int i = 0; i < f.length; i++) out[i] = (int) f[i]; // truncation toward zero, NaN to 0
            return out;
        }
        DType as = t.dtype == DType.U32 ? DType.U32 : DType.I32;
        try (Arena arena = Arena.ofConfined()) {
            return hostCopy(t, as, arena).asSlice(0, t.size() * 4).toArray(ValueLayout.JAVA_INT);
        }
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
        locked(() -> {
            if (!closed) {
                closed = true;
                mlx_synchronize(stream);
                mlx_stream_free(stream);
            }
            return null;
        });
    }
}
