package panamax.bench;

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
 * The f32 FMA peak reachable from Java, the yardstick of the prefill benchmark: every core runs
 * {@link #CHAINS} independent {@code FloatVector.fma} chains of the preferred species for
 * {@link #ITERATIONS} steps, enough chains to hide the FMA latency behind its throughput. Registers
 * only, no memory traffic. FLOPs per operation = {@link #flopsPerOp(int)}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class FmaPeak {
    public static final int CHAINS = 12;
    public static final int ITERATIONS = 1 << 20;

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    private CoreTeam team;
    private float[] partialSums;

    @Setup(Level.Trial)
    public void start() {
        team = CoreTeam.allCores();
        partialSums = new float[team.size()];
    }

    @TearDown(Level.Trial)
    public void stop() {
        team.close();
    }

    /** FLOPs of one operation on {@code threads} cores: one fma is two FLOPs per lane. */
    public static double flopsPerOp(int threads, int lanes) {
        return 2.0 * lanes * CHAINS * (double) ITERATIONS * threads;
    }

    /** f32 lanes of this JVM's preferred species, the width every chain uses. */
    public static int lanes() {
        return SPECIES.length();
    }

    /** FLOPs of one operation with this JVM's preferred species on every core. */
    public static double flopsPerOp(int threads) {
        return flopsPerOp(threads, SPECIES.length());
    }

    @Benchmark
    public float fmaChains() {
        team.run(part -> partialSums[part] = chains(ITERATIONS, part));
        float total = 0;
        for (float s : partialSums) total += s;
        return total;
    }

    /**
     * Twelve chains {@code c = c·a + b}; with a < 1 every chain converges to b/(1−a), so values stay
     * normal (no denormal or overflow slow paths) however long it runs.
     */
    static float chains(int iterations, int seed) {
        FloatVector a = FloatVector.broadcast(SPECIES, 0.999f);
        FloatVector b = FloatVector.broadcast(SPECIES, 0.001f);
        FloatVector c0 = FloatVector.broadcast(SPECIES, seed + 0.01f);
        FloatVector c1 = FloatVector.broadcast(SPECIES, seed + 0.02f);
        FloatVector c2 = FloatVector.broadcast(SPECIES, seed + 0.03f);
        FloatVector c3 = FloatVector.broadcast(SPECIES, seed + 0.04f);
        FloatVector c4 = FloatVector.broadcast(SPECIES, seed + 0.05f);
        FloatVector c5 = FloatVector.broadcast(SPECIES, seed + 0.06f);
        FloatVector c6 = FloatVector.broadcast(SPECIES, seed + 0.07f);
        FloatVector c7 = FloatVector.broadcast(SPECIES, seed + 0.08f);
        FloatVector c8 = FloatVector.broadcast(SPECIES, seed + 0.09f);
        FloatVector c9 = FloatVector.broadcast(SPECIES, seed + 0.10f);
        FloatVector c10 = FloatVector.broadcast(SPECIES, seed + 0.11f);
        FloatVector c11 = FloatVector.broadcast(SPECIES, seed + 0.12f);
        for (int i = 0; i < iterations; i++) {
            c0 = c0.fma(a, b);
            c1 = c1.fma(a, b);
            c2 = c2.fma(a, b);
            c3 = c3.fma(a, b);
            c4 = c4.fma(a, b);
            c5 = c5.fma(a, b);
            c6 = c6.fma(a, b);
            c7 = c7.fma(a, b);
            c8 = c8.fma(a, b);
            c9 = c9.fma(a, b);
            c10 = c10.fma(a, b);
            c11 = c11.fma(a, b);
        }
        FloatVector s = c0.add(c1).add(c2.add(c3)).add(c4.add(c5).add(c6.add(c7))).add(c8.add(c9).add(c10.add(c11)));
        return s.reduceLanes(VectorOperators.ADD);
    }
}
