package panamax.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The machine's read bandwidth, the yardstick of the matrix-vector benchmarks: one operation sums
 * every float of a {@link #BYTES}-byte off-heap segment (far beyond any cache) with the Vector API,
 * split into one contiguous chunk per core. Bytes per operation = {@link #BYTES}. The segment is
 * allocated and written once per trial, so its pages are resident before timing starts.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class ReadBandwidth {
    /** 1 GiB: 32× the 32 MiB L3 of the reference machine. */
    public static final long BYTES = 1L << 30;

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final int UNROLL = 4;

    private Arena arena;
    private MemorySegment data;
    private CoreTeam team;
    private float[] partialSums;

    @Setup(Level.Trial)
    public void allocate() {
        arena = Arena.ofShared();
        data = arena.allocate(BYTES, 4096);
        team = CoreTeam.allCores();
        partialSums = new float[team.size()];
        FloatVector fill = FloatVector.broadcast(SPECIES, 1.0f / 1024);
        team.run(part -> {
            long step = SPECIES.vectorByteSize();
            for (long off = chunkStart(part); off < chunkStart(part + 1); off += step) {
                fill.intoMemorySegment(data, off, ORDER);
            }
        });
    }

    @TearDown(Level.Trial)
    public void release() {
        team.close();
        arena.close();
    }

    /** Sums the whole segment once; returns the sum so the reads cannot be elided. */
    @Benchmark
    public float sumSegment() {
        team.run(part -> partialSums[part] = sum(data, chunkStart(part), chunkStart(part + 1)));
        float total = 0;
        for (float s : partialSums) total += s;
        return total;
    }

    /** Chunk boundaries are multiples of the unrolled step, so only the last chunk has a tail. */
    private long chunkStart(int part) {
        if (part >= team.size()) return BYTES;
        long block = (long) SPECIES.vectorByteSize() * UNROLL;
        return BYTES / team.size() * part / block * block;
    }

    static float sum(MemorySegment segment, long from, long to) {
        long step = SPECIES.vectorByteSize();
        long bound = from + (to - from) / (step * UNROLL) * (step * UNROLL);
        FloatVector a0 = FloatVector.zero(SPECIES);
        FloatVector a1 = FloatVector.zero(SPECIES);
        FloatVector a2 = FloatVector.zero(SPECIES);
        FloatVector a3 = FloatVector.zero(SPECIES);
        long off = from;
        for (; off < bound; off += step * UNROLL) {
            a0 = a0.add(FloatVector.fromMemorySegment(SPECIES, segment, off, ORDER));
            a1 = a1.add(FloatVector.fromMemorySegment(SPECIES, segment, off + step, ORDER));
            a2 = a2.add(FloatVector.fromMemorySegment(SPECIES, segment, off + 2 * step, ORDER));
            a3 = a3.add(FloatVector.fromMemorySegment(SPECIES, segment, off + 3 * step, ORDER));
        }
        float total = a0.add(a1).add(a2.add(a3)).reduceLanes(VectorOperators.ADD);
        for (; off + Float.BYTES <= to; off += Float.BYTES) {
            total += segment.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off);
        }
        return total;
    }
}
