package panamax.backend.tck;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.tensor.DType;

/**
 * QuickTheories generators of shapes and values shared by the TCK classes. Every generator is
 * built from QuickTheories primitives so that failures shrink toward small shapes and values near
 * zero. Stateless; thread-safe.
 */
public final class Gens {
    private Gens() {
    }

    /** Where generated values lie. */
    public enum Spread {
        /** Uniform in [-4, 4]. */
        UNIT,
        /** Magnitudes in [100, 1e5] of either sign. */
        LARGE,
        /** Uniform in [-4, -0.01]. */
        NEGATIVE,
        /** Integers in [-3, 3]: many exact ties. */
        SMALL_INTS
    }

    /** One dimension in [0, max]: 0 rarely, 1 often. */
    public static Gen<Integer> dim(int max) {
        return Generate.frequency(List.of(
                Pair.of(1, Generate.constant(0)),
                Pair.of(2, Generate.constant(1)),
                Pair.of(7, integers().between(Math.min(2, max), max))));
    }

    /** One dimension in [1, max]: 1 often. */
    public static Gen<Integer> positiveDim(int max) {
        return Generate.frequency(List.of(
                Pair.of(2, Generate.constant(1)),
                Pair.of(8, integers().between(1, max))));
    }

    /** Dims of rank in [minRank, maxRank], each in [0, maxDim] (see {@link #dim}). */
    public static Gen<int[]> dims(int minRank, int maxRank, int maxDim) {
        return described(Generate.intArrays(integers().between(minRank, maxRank), dim(maxDim)));
    }

    /** Dims with every dim at least 1. */
    public static Gen<int[]> nonEmptyDims(int minRank, int maxRank, int maxDim) {
        return described(Generate.intArrays(integers().between(minRank, maxRank), positiveDim(maxDim)));
    }

    /** One value of the given spread, in float64 (not yet rounded to a dtype). */
    public static Gen<Double> element(Spread spread) {
        return switch (spread) {
            case UNIT -> integers().between(-1_000_000, 1_000_000).map(i -> i * 4e-6);
            case LARGE -> integers().between(-1_000_000, 1_000_000)
                    .map(i -> Math.signum(i + 0.5) * (100 + Math.abs(i) * 0.1));
            case NEGATIVE -> integers().between(0, 1_000_000).map(i -> -0.01 - i * 3.99e-6);
            case SMALL_INTS -> integers().between(-3, 3).map(i -> (double) i);
        };
    }

    /** A spread, weighted toward ordinary values. */
    public static Gen<Spread> spreads() {
        return Generate.frequency(List.of(
                Pair.of(5, Generate.constant(Spread.UNIT)),
                Pair.of(2, Generate.constant(Spread.LARGE)),
                Pair.of(2, Generate.constant(Spread.NEGATIVE)),
                Pair.of(2, Generate.constant(Spread.SMALL_INTS))));
    }

    /** Values for {@code dims}, each drawn from {@code element} and rounded to {@code dtype}. */
    public static Gen<Ref> values(int[] dims, Gen<Double> element, DType dtype) {
        int n = Ref.size(dims);
        return in -> {
            double[] v = new double[n];
            for (int i = 0; i < n; i++) v[i] = Numerics.round(element.generate(in), dtype);
            return new Ref(dims.clone(), v);
        };
    }

    /** Values of a random spread for {@code dims}, rounded to {@code dtype}. */
    public static Gen<Ref> values(int[] dims, DType dtype) {
        return spreads().flatMap(s -> values(dims, element(s), dtype));
    }

    /** Tensors of generated dims and values. */
    public static Gen<Ref> tensors(Gen<int[]> dims, DType dtype) {
        return dims.flatMap(d -> values(d, dtype));
    }

    /** Any input layout. */
    public static Gen<InputLayout> layouts() {
        return Generate.enumValues(InputLayout.class);
    }

    /** One of {@code choices}. */
    public static <T> Gen<T> oneOf(List<T> choices) {
        return described(Generate.pick(new ArrayList<>(choices)));
    }

    /** A permutation of {@code 0..n-1}. */
    public static Gen<int[]> permutations(int n) {
        return described(in -> {
            int[] p = new int[n];
            for (int i = 0; i < n; i++) p[i] = i;
            for (int i = n - 1; i > 0; i--) {
                int j = integers().between(0, i).generate(in);
                int t = p[i];
                p[i] = p[j];
                p[j] = t;
            }
            return p;
        });
    }

    /** {@code gen} reporting arrays (also nested) by their contents when a property fails. */
    public static <T> Gen<T> described(Gen<T> gen) {
        return gen.describedAs(Gens::describe);
    }

    static String describe(Object value) {
        return value instanceof Object[] a ? java.util.Arrays.deepToString(a)
                : value instanceof int[] a ? java.util.Arrays.toString(a) : String.valueOf(value);
    }

    /**
     * Values uniform in [-amplitude, amplitude] from a seeded {@link java.util.SplittableRandom},
     * for inputs too large to shrink usefully; rounded to {@code dtype}.
     */
    public static Ref uniform(int[] dims, long seed, double amplitude, DType dtype) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        double[] v = new double[Ref.size(dims)];
        for (int i = 0; i < v.length; i++) v[i] = Numerics.round(random.nextDouble(-amplitude, amplitude), dtype);
        return new Ref(dims.clone(), v);
    }
}
