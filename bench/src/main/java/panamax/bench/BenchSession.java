package panamax.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.ServiceLoader;
import java.util.SplittableRandom;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * One benchmark trial's backend and off-heap weights. Opens the embedded Java backend the way the
 * engine does (through {@link ServiceLoader}, id {@code java}), owns a shared {@link Arena} for the
 * weight bytes, and owns every tensor passed to {@link #keep}. {@link #close} closes the kept
 * tensors newest first, then the backend, then the arena (the weights' segments must outlive the
 * tensors that view them). Used by one JMH thread at a time; the backend itself runs on all cores.
 */
final class BenchSession implements AutoCloseable {
    static final String BACKEND_ID = "java";

    private final Arena arena = Arena.ofShared();
    private final Backend backend;
    private final Deque<AutoCloseable> owned = new ArrayDeque<>();

    BenchSession() {
        this.backend = openBackend();
    }

    Backend backend() {
        return backend;
    }

    /** Registers {@code resource} to be closed with this session, and returns it. */
    <T extends AutoCloseable> T keep(T resource) {
        owned.push(resource);
        return resource;
    }

    /**
     * A bf16 tensor of the given shape over fresh off-heap bytes holding uniform values in
     * [-scale, scale), filled once from {@code seed}. The backend views the bytes without copying.
     * Owned by this session.
     */
    Tensor randomBf16(Shape shape, double scale, long seed) {
        long count = shape.size();
        MemorySegment bytes = arena.allocate(count * DType.BF16.byteSize(), 64);
        SplittableRandom random = new SplittableRandom(seed);
        for (long i = 0; i < count; i++) {
            float value = (float) ((random.nextDouble() * 2 - 1) * scale);
            // truncating to the upper 16 bits is a valid bf16; rounding does not matter for timing
            bytes.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) (Float.floatToRawIntBits(value) >>> 16));
        }
        return keep(backend.fromSegment(bytes, shape, DType.BF16));
    }

    /** An f32 tensor of uniform values in [-1, 1) from {@code seed}. Owned by this session. */
    Tensor randomF32(Shape shape, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] values = new float[Math.toIntExact(shape.size())];
        for (int i = 0; i < values.length; i++) values[i] = (float) (random.nextDouble() * 2 - 1);
        return keep(backend.fromFloats(values, shape, DType.F32));
    }

    /**
     * {@code count} quantized matrices: {@code first}, then copies of it made by the backend and owned by this session
     * (each copied tensor kept on its own, so a failure half-way still closes the others). Cycling through them, the
     * products read their weights from DRAM, as a model's layers do ({@link Workloads#copiesFor}).
     */
    QuantizedMatrix[] copies(QuantizedMatrix first, int count) {
        QuantizedMatrix[] all = new QuantizedMatrix[count];
        all[0] = first;
        for (int i = 1; i < count; i++) {
            all[i] = new QuantizedMatrix(keep(backend.ops().copy(first.packed())), keep(backend.ops().copy(first.scales())),
                    keep(backend.ops().copy(first.biases())), first.groupSize(), first.bits());
        }
        return all;
    }

    /**
     * One product of {@code x} over every matrix, each checked to have shape {@code expected}: a matrix's first product
     * repacks it (tiles, or widened codes), as a loaded model's first forward does, so this runs in a benchmark's setup
     * and the timed products are the steady state (timed, the repacks of {@code MatVecQ4}'s 4096-row copies filled all
     * eight iterations).
     */
    void repackEach(Tensor x, QuantizedMatrix[] weights, Shape expected) {
        for (QuantizedMatrix w : weights) {
            try (Tensor y = backend.ops().quantizedMatmul(x, w, true)) {
                backend.eval(y);
                requireShape("quantizedMatmul(x, Wq, true)", y, expected);
            }
        }
    }

    /** Throws when {@code t} does not have the shape a benchmark expects, naming both. */
    static void requireShape(String what, Tensor t, Shape expected) {
        if (!t.shape().equals(expected)) {
            throw new IllegalStateException(what + ": expected shape " + expected + ", found " + t.shape());
        }
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        while (!owned.isEmpty()) {
            try {
                owned.pop().close();
            } catch (Exception e) {
                if (failure == null) failure = new IllegalStateException("closing a benchmark tensor failed", e);
            }
        }
        backend.close();
        arena.close();
        if (failure != null) throw failure;
    }

    private static Backend openBackend() {
        List<BackendProvider> providers = ServiceLoader.load(BackendProvider.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        for (BackendProvider provider : providers) {
            if (provider.id().equals(BACKEND_ID)) return provider.create(BackendOptions.defaults());
        }
        throw new IllegalStateException("backend provider '" + BACKEND_ID + "': expected on the class path"
                + " (META-INF/services/" + BackendProvider.class.getName() + "), found "
                + providers.stream().map(BackendProvider::id).toList());
    }
}
