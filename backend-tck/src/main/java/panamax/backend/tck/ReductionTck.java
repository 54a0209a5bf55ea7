package panamax.backend.tck;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.tensor.DType;
import panamax.api.tensor.Reduction;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.TopK;

/**
 * Reductions: every {@link Reduction} along any (also negative) axis with and without kept dims,
 * argmax with ties, and topK with ties and every k. SUM and MEAN are compared with magnitude
 * Σ|x| (over n for MEAN); MAX, MIN, argmax and topK exactly (see {@link BackendTck}).
 */
public abstract class ReductionTck extends BackendTck {

    private record Case(Ref x, int axis, boolean keepDims, InputLayout layout) {
    }

    /** A tensor, an axis whose length is at least {@code minAxisLength}, keepDims and a layout. */
    private static Gen<Case> cases(Gen<int[]> dims, int minAxisLength) {
        return in -> {
            int[] d = dims.generate(in);
            int axis = integers().between(0, d.length - 1).generate(in);
            d[axis] = Math.max(d[axis], minAxisLength);
            return new Case(Gens.values(d, DType.F32).generate(in), axis,
                    Generate.booleans().generate(in), Gens.layouts().generate(in));
        };
    }

    private static int axisArgument(Case c, boolean negative) {
        return negative ? c.axis - c.x.rank() : c.axis;
    }

    @Test
    public void everyFloatingReductionMatchesFloat64AlongAnyAxis() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16, DType.F16));
        qt(150).forAll(cases(Gens.dims(1, 4, 6), 1), Generate.enumValues(Reduction.class), Gens.oneOf(types), Generate.booleans())
                .checkAssert((c, op, dtype, negative) -> {
                    Ref x = c.x.map(v -> Numerics.round(dtype == DType.F16 ? Math.max(-6e4, Math.min(6e4, v)) : v, dtype));
                    try (Tensor t = input(x, dtype, c.layout); Tensor r = ops().reduce(op, t, axisArgument(c, negative), c.keepDims)) {
                        assertClose(op + " over axis " + c.axis + " of " + x.shape() + " keepDims " + c.keepDims, r, dtype,
                                References.reduce(op, x, c.axis, c.keepDims));
                    }
                });
    }

    @Test
    public void longSumsAccumulateInF32OrWider() {
        // long rows of mixed sign: a plain f32 accumulator stays within tolerance, a bf16 one would not
        // every layout (4), each with 3 drawn lengths: 12 runs (10 random picks of the layout missed one with odds 1 in 4)
        for (InputLayout layout : InputLayout.values()) {
            qt(3).forAll(integers().between(500, 3000)).checkAssert(n -> {
                Ref x = Gens.uniform(new int[] {2, n}, n, 4, DType.BF16);
                try (Tensor t = input(x, DType.BF16, layout); Tensor r = ops().reduce(Reduction.SUM, t, 1, false)) {
                    assertClose("sum of " + n + " bf16 values, " + layout, r, DType.BF16, References.reduce(Reduction.SUM, x, 1, false));
                }
            });
        }
    }

    @Test
    public void integerSumMaxAndMinAreExact() {
        qt(60).forAll(cases(Gens.dims(1, 3, 5), 1), Gens.oneOf(List.of(Reduction.SUM, Reduction.MAX, Reduction.MIN)))
                .checkAssert((c, op) -> {
                    Ref x = c.x.map(v -> Numerics.round(Math.max(-1000, Math.min(1000, v)), DType.I32));
                    try (Tensor t = input(x, DType.I32, c.layout); Tensor r = ops().reduce(op, t, c.axis, c.keepDims)) {
                        assertExact(op + " of I32 over axis " + c.axis, r, DType.I32, References.reduce(op, x, c.axis, c.keepDims).value());
                    }
                });
    }

    @Test
    public void sumOverAnEmptyAxisIsZero() {
        qt(20).forAll(cases(Gens.dims(1, 3, 4), 0), Generate.booleans()).checkAssert((c, keep) -> {
            int[] d = c.x.dims().clone();
            d[c.axis] = 0;
            Ref empty = Ref.zeros(d);
            try (Tensor t = input(empty, DType.F32, c.layout); Tensor r = ops().sum(t, c.axis, keep)) {
                assertExact("sum over empty axis " + c.axis + " of " + empty.shape(), r, DType.F32,
                        References.reduce(Reduction.SUM, empty, c.axis, keep).value());
            }
        });
    }

    @Test
    public void argmaxPicksTheFirstLargestValue() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16, DType.I32));
        Gen<Case> tied = in -> {
            Case c = cases(Gens.dims(1, 4, 6), 1).generate(in);
            // mostly small integers so that ties are common
            Ref x = integers().between(0, 2).generate(in) > 0
                    ? Gens.values(c.x.dims(), Gens.element(Gens.Spread.SMALL_INTS), DType.F32).generate(in) : c.x;
            return new Case(x, c.axis, c.keepDims, c.layout);
        };
        qt(100).forAll(tied, Gens.oneOf(types), Generate.booleans()).checkAssert((c, dtype, negative) -> {
            Ref x = c.x.map(v -> Numerics.round(Math.max(-6e4, Math.min(6e4, v)), dtype));
            try (Tensor t = input(x, dtype, c.layout); Tensor r = ops().argmax(t, axisArgument(c, negative), c.keepDims)) {
                assertExact("argmax over axis " + c.axis + " of " + x, r, DType.I32, References.argmax(x, c.axis, c.keepDims));
            }
        });
    }

    @Test
    public void topKReturnsTheLargestValuesDescendingWithLowerIndicesFirstOnTies() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        Gen<Object[]> cases = Gens.nonEmptyDims(1, 3, 8).flatMap(d -> integers().between(0, d[d.length - 1]).flatMap(k ->
                Gens.spreads().flatMap(s -> Gens.values(d, Gens.element(s), DType.F32)).map(x -> new Object[] {x, k})));
        qt(100).forAll(Gens.described(cases), Gens.oneOf(types), Gens.layouts()).checkAssert((c, dtype, layout) -> {
            Ref x = ((Ref) c[0]).map(v -> Numerics.round(v, dtype));
            int k = (int) c[1];
            Ref[] expected = References.topK(x, k);
            try (Tensor t = input(x, dtype, layout); TopK top = ops().topK(t, k)) {
                assertExact("topK values, k=" + k + " of " + x, top.values(), dtype, expected[0]);
                assertExact("topK indices, k=" + k + " of " + x, top.indices(), DType.I32, expected[1]);
            }
        });
    }

    @Test
    public void topKOfAWideRowFindsTheLargestValues() {
        qt(10).forAll(integers().between(100, 5000), integers().between(1, 64)).checkAssert((n, k) -> {
            Ref x = Gens.uniform(new int[] {1, n}, n + k, 4, DType.F32);
            Ref[] expected = References.topK(x, Math.min(k, n));
            try (Tensor t = input(x, DType.F32); TopK top = ops().topK(t, Math.min(k, n))) {
                assertExact("topK values of " + n, top.values(), DType.F32, expected[0]);
                assertExact("topK indices of " + n, top.indices(), DType.I32, expected[1]);
            }
        });
        try (Tensor t = ops().zeros(Shape.of(2, 0), DType.F32); TopK top = ops().topK(t, 0)) {
            assertExact("topK of an empty row", top.values(), DType.F32, Ref.zeros(2, 0));
        }
    }
}
