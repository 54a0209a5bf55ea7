package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.MemoryStats;
import panamax.api.tensor.RopeSpec;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Memory accounting and ownership: active and peak bytes, views that outlive (or are outlived by)
 * the tensor they view, borrowed inputs that ops leave open and unchanged, and idempotent close.
 * Values are compared exactly (see {@link BackendTck}).
 */
public abstract class MemoryTck extends BackendTck {

    private long active() {
        return backend().memoryStats().activeBytes();
    }

    @Test
    public void activeBytesGrowByAtLeastTheTensorSizeAndFallBackWhenItCloses() {
        for (DType dtype : backend().capabilities().storageTypes()) {
            long before = active();
            Tensor t = ops().zeros(Shape.of(64, 33), dtype);
            backend().eval(t);
            assertTrue(active() - before >= 64L * 33 * dtype.byteSize(),
                    () -> dtype + ": active bytes grew by " + (active() - before) + ", expected at least " + 64 * 33 * dtype.byteSize());
            t.close();
            assertEquals(before, active(), dtype + ": active bytes after close");
        }
    }

    @Test
    public void peakBytesTrackTheHighestActiveBytesSinceTheLastReset() {
        backend().resetPeakMemory();
        MemoryStats start = backend().memoryStats();
        assertEquals(start.activeBytes(), start.peakBytes(), "peak right after reset");
        long bytes = 1000L * 4;
        try (Tensor a = ops().zeros(Shape.of(1000), DType.F32); Tensor b = ops().zeros(Shape.of(1000), DType.F32)) {
            backend().eval(a, b);
            assertTrue(backend().memoryStats().peakBytes() >= start.activeBytes() + 2 * bytes);
        }
        MemoryStats after = backend().memoryStats();
        assertTrue(after.peakBytes() >= start.activeBytes() + 2 * bytes, "peak survives the close of the tensors");
        assertTrue(after.peakBytes() >= after.activeBytes());
        backend().resetPeakMemory();
        assertEquals(backend().memoryStats().activeBytes(), backend().memoryStats().peakBytes(), "peak after second reset");
    }

    @Test
    public void viewsOutliveTheTensorTheyView() {
        Ref values = new Ref(new int[] {2, 3, 4}, java.util.stream.IntStream.range(0, 24).asDoubleStream().toArray());
        Tensor base = input(values, DType.F32);
        try (Tensor sliced = ops().slice(base, 2, 1, 3);
             Tensor transposed = ops().transpose(base, 2, 0, 1);
             Tensor reshaped = ops().reshape(base, Shape.of(6, 4));
             Tensor broadcast = ops().broadcastTo(base, Shape.of(2, 2, 3, 4))) {
            base.close();
            assertExact("slice after base closed", sliced, DType.F32, values.slice(2, 1, 3));
            assertExact("transpose after base closed", transposed, DType.F32, values.transpose(2, 0, 1));
            assertExact("reshape after base closed", reshaped, DType.F32, values.reshape(6, 4));
            assertExact("broadcast after base closed", broadcast, DType.F32, values.broadcastTo(new int[] {2, 2, 3, 4}));
        }
    }

    @Test
    public void closingAViewLeavesTheTensorItViewsIntact() {
        Ref values = new Ref(new int[] {3, 4}, java.util.stream.IntStream.range(0, 12).asDoubleStream().toArray());
        try (Tensor base = input(values, DType.F32)) {
            ops().slice(base, 0, 1, 2).close();
            ops().transpose(base, 1, 0).close();
            ops().reshape(base, Shape.of(12)).close();
            assertExact("base after its views closed", base, DType.F32, values);
        }
    }

    @Test
    public void opsLeaveTheirBorrowedInputsOpenAndUnchanged() {
        Ref a = new Ref(new int[] {1, 2, 2, 4}, new double[] {1, -2, 3, 0.5, 4, 5, -6, 7, 0, 1, 2, 3, -1, -2, -3, -4});
        Ref w = new Ref(new int[] {4}, new double[] {1, 0.5, -1, 2});
        try (Tensor x = input(a, DType.F32);
             Tensor weight = input(w, DType.F32);
             Tensor offsets = input(new Ref(new int[] {1}, new double[] {3}), DType.I32);
             Tensor xt = ops().transpose(x, 0, 1, 3, 2)) {
            List<Tensor> results = List.of(
                    ops().add(x, x), ops().unary(panamax.api.tensor.UnaryOp.EXP, x), ops().sum(x, -1, false),
                    ops().matmul(x, xt), ops().rmsNorm(x, weight, 1e-5),
                    ops().softmax(x, -1), ops().rope(x, RopeSpec.of(4, 10000), offsets), ops().copy(x),
                    ops().scaledDotProductAttention(x, x, x, 0.5, panamax.api.tensor.AttentionMask.CAUSAL));
            backend().eval(results.toArray(Tensor[]::new));
            results.forEach(Tensor::close);
            assertExact("x after ops", x, DType.F32, a);
            assertExact("weight after ops", weight, DType.F32, w);
            assertExact("transposed view after ops", xt, DType.F32, a.transpose(0, 1, 3, 2));
        }
    }

    @Test
    public void segmentTensorsReleaseTheirBytesWhenClosed() {
        MemoryStats before = backend().memoryStats();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(256 * 4, 8);
            try (Tensor t = backend().fromSegment(segment, Shape.of(16, 16), DType.F32)) {
                assertExact("zeroed segment", t, DType.F32, Ref.zeros(16, 16));
            }
        }
        MemoryStats after = backend().memoryStats();
        assertEquals(before.activeBytes(), after.activeBytes(), "active bytes");
        assertEquals(before.mappedBytes(), after.mappedBytes(), "mapped bytes");
    }

    @Test
    public void emptyTensorsCostNothingToKeepAndClose() {
        long before = active();
        try (Tensor empty = ops().zeros(Shape.of(3, 0, 2), DType.F32);
             Tensor sum = ops().sum(empty, 1, false)) {
            assertExact("sum over an empty axis", sum, DType.F32, Ref.zeros(3, 2));
        }
        assertEquals(before, active());
    }

    @Test
    public void opsFromSeveralThreadsAtOnceShareBorrowedInputsSafely() throws Exception {
        Ref a = Gens.uniform(new int[] {48, 96}, 21, 1, DType.F32);
        Ref b = Gens.uniform(new int[] {96, 64}, 22, 1, DType.F32);
        Expected product = References.matmul(a, b);
        Expected softmax = FusedReferences.softmax(a, 1);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try (Tensor ta = input(a, DType.F32); Tensor tb = input(b, DType.F32)) {
            List<java.util.concurrent.Future<?>> futures = new java.util.ArrayList<>();
            for (int thread = 0; thread < 4; thread++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 15; i++) {
                        try (Tensor p = ops().matmul(ta, tb); Tensor s = ops().softmax(ta, -1)) {
                            assertClose("matmul on a shared input", p, DType.F32, product);
                            assertClose("softmax on a shared input", s, DType.F32, softmax);
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : futures) f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    public void closingABackendTwiceIsHarmless() {
        Backend other = provider().create(options());
        try (Tensor t = other.fromFloats(new float[] {1}, Shape.of(1), DType.F32)) {
            assertEquals(1.0f, other.toFloats(t)[0]);
        }
        assertEquals(0, other.memoryStats().activeBytes(), "a fresh backend's active bytes after its only tensor closed");
        other.close();
        other.close();
    }
}
