package panamax.bench.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import panamax.api.memory.HugePageMemory;

/**
 * The two yardsticks of the floor, measured in this JVM the way {@code bench}'s JMH
 * {@code ReadBandwidth} and {@code FmaPeak} measure them: a Vector API sum over an off-heap
 * segment (one contiguous chunk per thread, four accumulators) and twelve independent FMA chains
 * per thread. Each probe runs several passes and keeps the best: the floor is what the hardware
 * can do, and on a shared machine the best pass is the one least disturbed by others.
 */
final class MachineProbes {
    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int FMA_CHAINS = 12;
    private static final int FMA_STEPS = 1 << 20;

    /** Read bandwidth in bytes per second and f32 FMA peak in FLOP per second. */
    record Yardsticks(double readBytesPerSecond, double flopsPerSecond, long probeBytes, int threads, int lanes) {
        /** The faster of each yardstick: on a shared machine a probe only errs low (another tenant's traffic). */
        Yardsticks best(Yardsticks other) {
            return new Yardsticks(Math.max(readBytesPerSecond, other.readBytesPerSecond), Math.max(flopsPerSecond, other.flopsPerSecond),
                    probeBytes, threads, lanes);
        }
    }

    private MachineProbes() {
    }

    static Yardsticks measure(long probeBytes, int threads, int passes) {
        return new Yardsticks(readBandwidth(probeBytes, threads, passes), fmaPeak(threads, passes), probeBytes, threads, SPECIES.length());
    }

    /**
     * Best bytes/s over {@code passes} sums of a {@code bytes}-byte off-heap segment split across
     * threads; the segment is advised for huge pages where the OS offers them ({@link HugePageMemory}).
     */
    static double readBandwidth(long bytes, int threads, int passes) {
        long chunk = bytes / threads / SPECIES.vectorByteSize() / 4 * SPECIES.vectorByteSize() * 4;
        if (chunk <= 0) throw new IllegalArgumentException("--probe-mib: too small for " + threads + " threads");
        try (Arena arena = Arena.ofShared(); ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            // the memory the weights live in by default (--weights-memory auto copies them into huge
            // pages where the OS offers them): 4 KiB pages read ~20 % slower here, which made copied
            // bf16 weights decode at 124 % of a floor measured on them
            MemorySegment seg = HugePageMemory.allocate(chunk * threads, arena);
            // Written once so every page is resident before it is timed.
            for (long i = 0; i < seg.byteSize(); i += 4) seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (i & 1023) * 1e-3f);
            double best = 0;
            float sink = 0;
            for (int p = 0; p < passes + 1; p++) {
                List<Callable<Float>> tasks = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    MemorySegment part = seg.asSlice(t * chunk, chunk);
                    tasks.add(() -> sum(part));
                }
                long start = System.nanoTime();
                for (Future<Float> f : pool.invokeAll(tasks)) sink += f.get();
                double seconds = (System.nanoTime() - start) / 1e9;
                if (p > 0) best = Math.max(best, seg.byteSize() / seconds); // the first pass warms the JIT
            }
            if (Float.isNaN(sink)) throw new AssertionError("unreachable: keeps the sums alive");
            return best;
        } catch (Exception e) {
            throw new IllegalStateException("read-bandwidth probe failed: " + e, e);
        }
    }

    private static float sum(MemorySegment s) {
        FloatVector a = FloatVector.zero(SPECIES), b = a, c = a, d = a;
        long step = SPECIES.vectorByteSize();
        for (long i = 0; i < s.byteSize(); i += 4 * step) {
            a = a.add(FloatVector.fromMemorySegment(SPECIES, s, i, ByteOrder.LITTLE_ENDIAN));
            b = b.add(FloatVector.fromMemorySegment(SPECIES, s, i + step, ByteOrder.LITTLE_ENDIAN));
            c = c.add(FloatVector.fromMemorySegment(SPECIES, s, i + 2 * step, ByteOrder.LITTLE_ENDIAN));
            d = d.add(FloatVector.fromMemorySegment(SPECIES, s, i + 3 * step, ByteOrder.LITTLE_ENDIAN));
        }
        return a.add(b).add(c).add(d).reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
    }

    /** Best FLOP/s over {@code passes} runs of 12 independent FMA chains per thread. */
    static double fmaPeak(int threads, int passes) {
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            double best = 0;
            float sink = 0;
            for (int p = 0; p < passes + 2; p++) {
                List<Callable<Float>> tasks = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    float seed = t + 1;
                    tasks.add(() -> fmaChains(seed));
                }
                long start = System.nanoTime();
                for (Future<Float> f : pool.invokeAll(tasks)) sink += f.get();
                double seconds = (System.nanoTime() - start) / 1e9;
                double flops = 2.0 * SPECIES.length() * FMA_CHAINS * (double) FMA_STEPS * threads;
                if (p > 1) best = Math.max(best, flops / seconds);
            }
            if (Float.isNaN(sink)) throw new AssertionError("unreachable: keeps the chains alive");
            return best;
        } catch (Exception e) {
            throw new IllegalStateException("FMA probe failed: " + e, e);
        }
    }

    private static float fmaChains(float seed) {
        FloatVector m = FloatVector.broadcast(SPECIES, 0.999999f), k = FloatVector.broadcast(SPECIES, 1e-7f);
        FloatVector c0 = FloatVector.broadcast(SPECIES, seed), c1 = c0.add(1), c2 = c0.add(2), c3 = c0.add(3),
                c4 = c0.add(4), c5 = c0.add(5), c6 = c0.add(6), c7 = c0.add(7), c8 = c0.add(8), c9 = c0.add(9),
                c10 = c0.add(10), c11 = c0.add(11);
        for (int i = 0; i < FMA_STEPS; i++) {
            c0 = c0.fma(m, k); c1 = c1.fma(m, k); c2 = c2.fma(m, k); c3 = c3.fma(m, k);
            c4 = c4.fma(m, k); c5 = c5.fma(m, k); c6 = c6.fma(m, k); c7 = c7.fma(m, k);
            c8 = c8.fma(m, k); c9 = c9.fma(m, k); c10 = c10.fma(m, k); c11 = c11.fma(m, k);
        }
        return c0.add(c1).add(c2).add(c3).add(c4).add(c5).add(c6).add(c7).add(c8).add(c9).add(c10).add(c11)
                .reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
    }
}
