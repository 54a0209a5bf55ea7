package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Gathers and scatters: take, takeAlongAxis, putAlongAxis and sliceUpdate, with I32 indices of
 * any rank, broadcast index shapes, empty axes and non-contiguous inputs, and the in-place writes
 * writeSlice and writeAlongAxis (into strided targets, with dtype conversion, without allocating).
 * All exact (see {@link BackendTck}).
 */
public abstract class IndexingTck extends BackendTck {

    private record Case(Ref x, Ref indices, Ref values, int axis) {
    }

    private static int draw(RandomnessSource in, int lo, int hi) {
        return integers().between(lo, hi).generate(in);
    }

    private static Ref indicesBelow(int[] dims, int bound, RandomnessSource in) {
        double[] v = new double[Ref.size(dims)];
        for (int i = 0; i < v.length; i++) v[i] = draw(in, 0, bound - 1);
        return new Ref(dims, v);
    }

    private static Gen<Case> takeCases() {
        return in -> {
            int[] xd = Gens.dims(1, 3, 4).generate(in);
            int axis = draw(in, 0, xd.length - 1);
            xd[axis] = Math.max(1, xd[axis]);
            Ref x = Gens.values(xd, DType.F32).generate(in);
            int[] id = Gens.dims(0, 2, 3).generate(in);
            return new Case(x, indicesBelow(id, xd[axis], in), null, axis);
        };
    }

    @Test
    public void takeGathersAlongAnAxisByIndicesOfAnyShape() {
        qt(60).forAll(takeCases(), Gens.layouts(), Gens.layouts()).checkAssert((c, xLayout, iLayout) -> {
            try (Tensor x = input(c.x, DType.F32, xLayout);
                 Tensor idx = input(c.indices, DType.I32, iLayout);
                 Tensor r = ops().take(x, idx, c.axis)) {
                assertExact("take axis " + c.axis + " by " + c.indices, r, DType.F32, References.take(c.x, c.indices, c.axis));
            }
        });
    }

    @Test
    public void takeRefusesAnIndexOutOfRange() {
        try (Tensor x = ops().zeros(Shape.of(3, 2), DType.F32);
             Tensor idx = backend().fromInts(new int[] {0, 3}, Shape.of(2), DType.I32)) {
            assertThrows(RuntimeException.class, () -> {
                try (Tensor r = ops().take(x, idx, 0)) {
                    backend().eval(r);
                    backend().toFloats(r);
                }
            });
        }
    }

    private static Gen<Case> alongAxisCases(boolean unique) {
        return in -> {
            int[] out = Gens.nonEmptyDims(1, 3, 4).generate(in);
            int axis = draw(in, 0, out.length - 1);
            int n = draw(in, 1, 5);
            int[] xd = out.clone();
            int[] id = out.clone();
            xd[axis] = n;
            id[axis] = unique ? draw(in, 0, n) : draw(in, 0, 4);
            for (int a = 0; a < out.length; a++) {
                int broadcast = unique || a == axis ? 0 : draw(in, 0, 2);
                if (broadcast == 1) xd[a] = 1;
                if (broadcast == 2) id[a] = 1;
            }
            Ref x = Gens.values(xd, DType.F32).generate(in);
            Ref indices = indicesBelow(id, n, in);
            if (unique) {
                // every lane writes distinct positions, so the order of writes cannot matter
                int lanes = indices.size() / Math.max(1, id[axis]);
                int[] stride = Ref.strides(id);
                for (int f = 0, lane = 0; lane < lanes; f++) {
                    int[] idx = Ref.unravel(f, id);
                    if (idx[axis] != 0) continue;
                    int[] perm = Gens.permutations(n).generate(in);
                    for (int j = 0; j < id[axis]; j++) indices.values()[f + j * stride[axis]] = perm[j];
                    lane++;
                }
            }
            Ref values = Gens.values(id, DType.F32).generate(in);
            return new Case(x, indices, values, axis);
        };
    }

    @Test
    public void takeAlongAxisGathersWithBroadcastIndices() {
        qt(60).forAll(alongAxisCases(false), Gens.layouts(), Gens.layouts()).checkAssert((c, xLayout, iLayout) -> {
            try (Tensor x = input(c.x, DType.F32, xLayout);
                 Tensor idx = input(c.indices, DType.I32, iLayout);
                 Tensor r = ops().takeAlongAxis(x, idx, c.axis)) {
                assertExact("takeAlongAxis axis " + c.axis + " of " + c.x.shape() + " by " + c.indices, r, DType.F32,
                        References.takeAlongAxis(c.x, c.indices, c.axis));
            }
        });
    }

    @Test
    public void putAlongAxisWritesValuesAtIndicesOfACopy() {
        qt(60).forAll(alongAxisCases(true), Gens.layouts(), Gens.layouts()).checkAssert((c, xLayout, vLayout) -> {
            try (Tensor x = input(c.x, DType.F32, xLayout);
                 Tensor idx = input(c.indices, DType.I32);
                 Tensor values = input(c.values, DType.F32, vLayout);
                 Tensor r = ops().putAlongAxis(x, idx, values, c.axis)) {
                assertExact("putAlongAxis axis " + c.axis + " at " + c.indices, r, DType.F32,
                        References.putAlongAxis(c.x, c.indices, c.values, c.axis));
                assertExact("x is borrowed", x, DType.F32, c.x);
            }
        });
    }

    private static Gen<Object[]> sliceUpdateCases() {
        return in -> {
            int[] xd = Gens.dims(1, 4, 5).generate(in);
            int[] ud = new int[xd.length];
            int[] starts = new int[xd.length];
            for (int a = 0; a < xd.length; a++) {
                ud[a] = draw(in, 0, xd[a]);
                starts[a] = draw(in, 0, xd[a] - ud[a]);
            }
            return new Object[] {Gens.values(xd, DType.F32).generate(in), Gens.values(ud, DType.F32).generate(in), starts};
        };
    }

    @Test
    public void sliceUpdateWritesABlockAtItsOffsetInACopy() {
        qt(60).forAll(Gens.described(sliceUpdateCases()), Gens.layouts(), Gens.layouts()).checkAssert((c, xLayout, uLayout) -> {
            Ref x = (Ref) c[0];
            Ref update = (Ref) c[1];
            int[] starts = (int[]) c[2];
            try (Tensor xt = input(x, DType.F32, xLayout);
                 Tensor ut = input(update, DType.F32, uLayout);
                 Tensor r = ops().sliceUpdate(xt, ut, starts)) {
                assertExact("sliceUpdate " + update.shape() + " at " + java.util.Arrays.toString(starts), r, DType.F32,
                        References.sliceUpdate(x, update, starts));
                assertExact("x is borrowed", xt, DType.F32, x);
            }
        });
    }

    @Test
    public void sliceUpdateRefusesABlockThatDoesNotFit() {
        try (Tensor x = ops().zeros(Shape.of(3, 3), DType.F32); Tensor u = ops().zeros(Shape.of(2, 2), DType.F32)) {
            assertThrows(IllegalArgumentException.class, () -> ops().sliceUpdate(x, u, 2, 0));
        }
    }

    /** The dtype an update is handed in: F32 as is, or BF16 (then the target holds the bf16-rounded values). */
    private static Gen<DType> updateTypes() {
        return Gens.oneOf(java.util.List.of(DType.F32, DType.BF16));
    }

    @Test
    public void writeSliceWritesInPlaceIntoStridedTargetsWithoutAllocating() {
        qt(60).forAll(Gens.described(sliceUpdateCases()), Gens.layouts(), Gens.layouts(), updateTypes())
                .checkAssert((c, xLayout, uLayout, uType) -> {
            Ref x = (Ref) c[0];
            Ref update = ((Ref) c[1]).map(v -> Numerics.round(v, uType));
            int[] starts = (int[]) c[2];
            try (Tensor target = input(x, DType.F32, xLayout); Tensor ut = input(update, uType, uLayout)) {
                long before = backend().memoryStats().activeBytes();
                ops().writeSlice(target, ut, starts);
                backend().eval(target);
                org.junit.jupiter.api.Assertions.assertEquals(before, backend().memoryStats().activeBytes(),
                        "writeSlice allocated memory");
                assertExact("writeSlice " + update.shape() + " " + uType + " at " + java.util.Arrays.toString(starts) + " into "
                        + xLayout, target, DType.F32, References.sliceUpdate(x, update, starts));
            }
        });
    }

    @Test
    public void writeSliceIsSeenByViewsOfTheTarget() {
        try (Tensor plane = ops().zeros(Shape.of(2, 6), DType.F32);
             Tensor view = ops().slice(plane, 1, 2, 6);
             Tensor update = backend().fromFloats(new float[] {1, 2, 3, 4}, Shape.of(2, 2), DType.F32)) {
            ops().writeSlice(view, update, 0, 1);
            assertExact("plane seen through its view", plane, DType.F32,
                    new Ref(new int[] {2, 6}, new double[] {0, 0, 0, 1, 2, 0, 0, 0, 0, 3, 4, 0}));
        }
    }

    @Test
    public void writeAlongAxisWritesValuesAtIndicesInPlace() {
        qt(60).forAll(alongAxisCases(true), Gens.layouts(), Gens.layouts(), updateTypes()).checkAssert((c, xLayout, vLayout, vType) -> {
            Ref values = c.values.map(v -> Numerics.round(v, vType));
            try (Tensor target = input(c.x, DType.F32, xLayout);
                 Tensor idx = input(c.indices, DType.I32);
                 Tensor vt = input(values, vType, vLayout)) {
                long before = backend().memoryStats().activeBytes();
                ops().writeAlongAxis(target, idx, vt, c.axis);
                backend().eval(target);
                org.junit.jupiter.api.Assertions.assertEquals(before, backend().memoryStats().activeBytes(),
                        "writeAlongAxis allocated memory");
                assertExact("writeAlongAxis axis " + c.axis + " at " + c.indices, target, DType.F32,
                        References.putAlongAxis(c.x, c.indices, values, c.axis));
            }
        });
    }

    @Test
    public void inPlaceWritesRefuseBadTargets() {
        try (Tensor x = ops().zeros(Shape.of(3, 3), DType.F32);
             Tensor u = ops().zeros(Shape.of(2, 2), DType.F32);
             Tensor one = ops().zeros(Shape.of(1, 3), DType.F32);
             Tensor broadcast = ops().broadcastTo(one, Shape.of(3, 3));
             Tensor idx = backend().fromInts(new int[] {0, 3, 1}, Shape.of(1, 3), DType.I32);
             Tensor v = ops().full(Shape.of(1, 3), 5, DType.F32)) {
            assertRefusedNaming(() -> ops().writeSlice(x, u, 2, 0), Shape.of(3, 3), Shape.of(2, 2));
            assertThrows(IllegalArgumentException.class, () -> ops().writeSlice(broadcast, u, 0, 0));
            assertThrows(RuntimeException.class, () -> ops().writeAlongAxis(x, idx, v, 0));
            assertExact("a refused write leaves the target unchanged", x, DType.F32, Ref.zeros(new int[] {3, 3}));
        }
    }
}
