package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Shape and data movement: reshape, transpose, slice, broadcastTo, copy, concat, take,
 * takeAlongAxis, putAlongAxis, sliceUpdate and astype, each fed contiguous, transposed and sliced
 * inputs of rank 0 to 4 with empty and size-1 axes. Data movement is exact; astype follows the
 * rounding rules of the api (see {@link BackendTck}).
 */
public abstract class ShapeOpsTck extends BackendTck {

    private Gen<DType> movableTypes() {
        return Gens.oneOf(List.copyOf(supported(DType.F32, DType.BF16, DType.I32)));
    }

    private Gen<Ref> tensors(int minRank, int maxRank, int maxDim) {
        return Gens.tensors(Gens.dims(minRank, maxRank, maxDim), DType.F32);
    }

    /** New dims of the same size: flattened, reversed, with a 1 inserted, or two axes merged. */
    private static Gen<int[]> reshapeOf(int[] d) {
        return integers().between(0, 3).zip(integers().between(0, 4), (kind, pos) -> {
            List<Integer> out = new ArrayList<>();
            for (int x : d) out.add(x);
            switch (kind) {
                case 0 -> {
                    out.clear();
                    out.add(Ref.size(d));
                }
                case 1 -> java.util.Collections.reverse(out);
                case 2 -> out.add(Math.min(pos, out.size()), 1);
                default -> {
                    if (out.size() >= 2) {
                        int p = Math.min(pos, out.size() - 2);
                        out.set(p, out.get(p) * out.remove(p + 1));
                    }
                }
            }
            return out.stream().mapToInt(Integer::intValue).toArray();
        });
    }

    @Test
    public void reshapeKeepsRowMajorOrderOfAnyLayout() {
        qt(60).forAll(Gens.described(tensors(0, 4, 4).flatMap(r -> reshapeOf(r.dims()).map(d -> new Object[] {r, d}))), Gens.layouts())
                .checkAssert((c, layout) -> {
                    Ref x = (Ref) c[0];
                    int[] dims = (int[]) c[1];
                    try (Tensor t = input(x, DType.F32, layout); Tensor r = ops().reshape(t, new Shape(dims))) {
                        assertExact("reshape " + x.shape() + " -> " + new Shape(dims), r, DType.F32, x.reshape(dims));
                    }
                });
    }

    @Test
    public void reshapeRefusesADifferentSize() {
        try (Tensor t = ops().zeros(Shape.of(2, 3), DType.F32)) {
            assertRefusedNaming(() -> ops().reshape(t, Shape.of(7)), Shape.of(2, 3), Shape.of(7));
        }
    }

    @Test
    public void transposePermutesAxesOfAnyLayout() {
        qt(60).forAll(Gens.described(tensors(0, 4, 4).flatMap(r -> Gens.permutations(r.rank()).map(p -> new Object[] {r, p}))),
                Gens.layouts(), movableTypes()).checkAssert((c, layout, dtype) -> {
                    Ref x = ((Ref) c[0]).map(v -> Numerics.round(v, dtype));
                    int[] perm = (int[]) c[1];
                    try (Tensor t = input(x, dtype, layout); Tensor r = ops().transpose(t, perm)) {
                        assertExact("transpose " + java.util.Arrays.toString(perm), r, dtype, x.transpose(perm));
                    }
                });
    }

    @Test
    public void sliceTakesAHalfOpenRangeOfOneAxis() {
        Gen<Object[]> cases = tensors(1, 4, 5).flatMap(x -> integers().between(0, x.rank() - 1).flatMap(axis ->
                integers().between(0, x.dim(axis)).flatMap(start -> integers().between(start, x.dim(axis))
                        .map(end -> new Object[] {x, axis, start, end}))));
        qt(80).forAll(Gens.described(cases), Gens.layouts(), Generate.booleans()).checkAssert((c, layout, negativeAxis) -> {
            Ref x = (Ref) c[0];
            int axis = (int) c[1];
            int start = (int) c[2];
            int end = (int) c[3];
            try (Tensor t = input(x, DType.F32, layout);
                 Tensor r = ops().slice(t, negativeAxis ? axis - x.rank() : axis, start, end)) {
                assertExact("slice axis " + axis + " [" + start + ", " + end + ")", r, DType.F32, x.slice(axis, start, end));
            }
        });
    }

    @Test
    public void sliceRefusesARangeOutsideTheAxis() {
        try (Tensor t = ops().zeros(Shape.of(2, 3), DType.F32)) {
            assertThrows(IllegalArgumentException.class, () -> ops().slice(t, 1, 2, 4));
            assertThrows(IllegalArgumentException.class, () -> ops().slice(t, 0, 2, 1));
            assertThrows(IllegalArgumentException.class, () -> ops().slice(t, 2, 0, 1));
        }
    }

    @Test
    public void broadcastToRepeatsSizeOneAndMissingAxes() {
        Gen<Object[]> cases = Gens.dims(0, 4, 4).flatMap(target -> integers().between(0, target.length).zip(
                Generate.intArrays(Generate.constant(target.length), integers().between(0, 1)), (drop, ones) -> {
                    int[] source = java.util.Arrays.copyOfRange(target, drop, target.length);
                    for (int i = 0; i < source.length; i++) if (ones[i] == 1) source[i] = 1;
                    return new Object[] {source, target};
                }));
        qt(60).forAll(Gens.described(cases.flatMap(c -> Gens.values((int[]) c[0], DType.F32).map(x -> new Object[] {x, c[1]}))), Gens.layouts())
                .checkAssert((c, layout) -> {
                    Ref x = (Ref) c[0];
                    int[] target = (int[]) c[1];
                    try (Tensor t = input(x, DType.F32, layout); Tensor r = ops().broadcastTo(t, new Shape(target))) {
                        assertExact("broadcast " + x.shape() + " to " + new Shape(target), r, DType.F32, x.broadcastTo(target));
                    }
                });
    }

    @Test
    public void copyIsRowMajorAndIndependentOfItsSource() {
        qt(40).forAll(tensors(0, 4, 5), Gens.layouts(), movableTypes()).checkAssert((x0, layout, dtype) -> {
            Ref x = x0.map(v -> Numerics.round(v, dtype));
            Tensor t = input(x, dtype, layout);
            try (Tensor r = ops().copy(t)) {
                t.close();
                assertExact("copy", r, dtype, x);
            }
        });
    }

    @Test
    public void concatJoinsTensorsAlongOneAxis() {
        Gen<Object[]> cases = Gens.nonEmptyDims(1, 4, 4).flatMap(base -> integers().between(0, base.length - 1).flatMap(axis ->
                Generate.intArrays(integers().between(1, 4), integers().between(0, 3)).flatMap(lengths -> in -> {
                    List<Ref> parts = new ArrayList<>();
                    for (int len : lengths) {
                        int[] d = base.clone();
                        d[axis] = len;
                        parts.add(Gens.values(d, DType.F32).generate(in));
                    }
                    return new Object[] {parts, axis};
                })));
        qt(60).forAll(Gens.described(cases), Gens.layouts()).checkAssert((c, layout) -> {
            @SuppressWarnings("unchecked")
            List<Ref> parts = (List<Ref>) c[0];
            int axis = (int) c[1];
            List<Tensor> ts = new ArrayList<>();
            try {
                for (Ref p : parts) ts.add(input(p, DType.F32, layout));
                try (Tensor r = ops().concat(ts, axis)) {
                    assertExact("concat axis " + axis, r, DType.F32, References.concat(parts, axis));
                }
            } finally {
                ts.forEach(Tensor::close);
            }
        });
    }

    @Test
    public void concatRefusesMismatchedShapesOrDtypes() {
        try (Tensor a = ops().zeros(Shape.of(2, 3), DType.F32);
             Tensor b = ops().zeros(Shape.of(3, 3), DType.F32);
             Tensor c = ops().zeros(Shape.of(2, 3), DType.I32)) {
            assertRefusedNaming(() -> ops().concat(List.of(a, b), 1), a.shape(), b.shape());
            assertThrows(IllegalArgumentException.class, () -> ops().concat(List.of(a, c), 0));
        }
    }

    @Test
    public void astypeRoundsFloatsToNearestEvenAndTruncatesToIntegers() {
        List<DType[]> conversions = new ArrayList<>();
        for (DType from : supported(DType.F32, DType.BF16, DType.F16, DType.I32)) {
            for (DType to : supported(DType.F32, DType.BF16, DType.F16, DType.I32)) conversions.add(new DType[] {from, to});
        }
        qt(80).forAll(tensors(0, 3, 5), Gens.oneOf(conversions), Gens.layouts()).checkAssert((x0, conversion, layout) -> {
            DType from = conversion[0];
            DType to = conversion[1];
            Ref x = x0.map(v -> Numerics.round(Math.max(-6e4, Math.min(6e4, v)), from)); // inside F16's range
            try (Tensor t = input(x, from, layout); Tensor r = ops().astype(t, to)) {
                assertExact("astype " + from + " -> " + to, r, to, x.map(v -> Numerics.round(v, to)));
            }
        });
    }

    @Test
    public void opsReadBroadcastViewsWithRepeatedElements() {
        // a stride-0 view (as GQA expansion or a bias row makes) fed into ops that read it
        qt(30).forAll(Gens.nonEmptyDims(2, 2, 12), Generate.booleans()).checkAssert((dims, rowWise) -> {
            int[] small = rowWise ? new int[] {1, dims[1]} : new int[] {dims[0], 1};
            Ref source = Gens.uniform(small, dims[0] * 31L + dims[1], 2, DType.F32);
            Ref x = source.broadcastTo(dims);
            Ref w = Gens.uniform(new int[] {dims[1], 5}, dims[1], 1, DType.F32);
            try (Tensor ts = input(source, DType.F32); Tensor view = ops().broadcastTo(ts, new Shape(dims));
                 Tensor tw = input(w, DType.F32);
                 Tensor exp = ops().unary(panamax.api.tensor.UnaryOp.EXP, view); Tensor sum = ops().sum(view, 0, false);
                 Tensor soft = ops().softmax(view, -1); Tensor product = ops().matmul(view, tw); Tensor copy = ops().copy(view);
                 Tensor twice = ops().add(view, view)) {
                assertClose("exp of a broadcast view", exp, DType.F32, x.map(Math::exp), x.map(Math::exp).values());
                assertClose("sum of a broadcast view", sum, DType.F32, References.reduce(panamax.api.tensor.Reduction.SUM, x, 0, false));
                assertClose("softmax of a broadcast view", soft, DType.F32, FusedReferences.softmax(x, 1));
                assertClose("matmul of a broadcast view", product, DType.F32, References.matmul(x, w));
                assertExact("copy of a broadcast view", copy, DType.F32, x);
                assertExact("view + view", twice, DType.F32, x.map(v -> 2 * v));
            }
        });
    }
}
