package panamax.backend.tck;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * {@code matmul}: {@code [..., m, k] × [..., k, n]} with broadcast batch axes, empty and size-1
 * dims, transposed and sliced operands, F32 / BF16 / mixed dtypes, and sizes past vector-width and
 * blocking boundaries. Magnitude is Σ|a·b| per output (see {@link BackendTck}).
 */
public abstract class MatmulTck extends BackendTck {

    private record Case(Ref a, Ref b) {
    }

    private List<DType[]> typePairs() {
        List<DType[]> pairs = new ArrayList<>();
        for (DType[] p : new DType[][] {{DType.F32, DType.F32}, {DType.BF16, DType.BF16}, {DType.F32, DType.BF16},
                {DType.BF16, DType.F32}, {DType.F16, DType.F16}}) {
            if (supported(p).size() == (p[0] == p[1] ? 1 : 2)) pairs.add(p);
        }
        return pairs;
    }

    /** Operands with up to {@code maxBatchRank} batch dims that broadcast; m, k, n up to {@code maxDim}. */
    private static Gen<Case> cases(int maxDim, int maxBatchRank) {
        return in -> {
            int[][] batch = ElementwiseTck.broadcastDims(2).generate(in);
            int m = Gens.dim(maxDim).generate(in);
            int k = Gens.dim(maxDim).generate(in);
            int n = Gens.dim(maxDim).generate(in);
            int[] aBatch = java.util.Arrays.copyOf(batch[0], Math.min(batch[0].length, maxBatchRank));
            int[] bBatch = java.util.Arrays.copyOf(batch[1], Math.min(batch[1].length, maxBatchRank));
            if (Ref.broadcastDims(aBatch, bBatch) == null) bBatch = aBatch.clone();
            return new Case(Gens.values(References.concat(aBatch, m, k), DType.F32).generate(in),
                    Gens.values(References.concat(bBatch, k, n), DType.F32).generate(in));
        };
    }

    private void check(Case c, DType[] types, InputLayout la, InputLayout lb) {
        Ref a = c.a.map(v -> Numerics.round(v, types[0]));
        Ref b = c.b.map(v -> Numerics.round(v, types[1]));
        DType result = Numerics.promote(types[0], types[1]);
        try (Tensor ta = input(a, types[0], la); Tensor tb = input(b, types[1], lb); Tensor r = ops().matmul(ta, tb)) {
            assertClose("matmul " + types[0] + " " + a.shape() + " × " + types[1] + " " + b.shape() + " (" + la + ", " + lb + ")",
                    r, result, References.matmul(a, b));
        }
    }

    @Test
    public void matmulOfSmallBatchedOperandsMatchesFloat64() {
        qt(150).forAll(cases(6, 2), Gens.oneOf(typePairs()), Gens.layouts(), Gens.layouts()).checkAssert(this::check);
    }

    @Test
    public void matmulPastVectorAndBlockBoundariesMatchesFloat64() {
        qt(25).forAll(cases(70, 1), Gens.oneOf(typePairs()), Gens.layouts(), Gens.layouts()).checkAssert(this::check);
    }

    @Test
    public void matrixVectorProductsWithLongRowsMatchFloat64() {
        // decode shape: one activation row against a weight used transposed, as a linear layer does
        // every type pair (5 on the java backend) × layout of x (4), each with 2 drawn shapes: 40 runs
        // (12 random picks reached at most 12 of the 20 combinations)
        for (DType[] types : typePairs()) {
            for (InputLayout layout : InputLayout.values()) {
                qt(2).forAll(integers().between(1, 520), integers().between(1, 130)).checkAssert((k, n) -> {
                    Ref x = Gens.uniform(new int[] {1, k}, k, 2, types[0]);
                    Ref w = Gens.uniform(new int[] {n, k}, n, 0.1, types[1]);
                    try (Tensor tx = input(x, types[0], layout); Tensor tw = input(w, types[1]);
                         Tensor wt = ops().transpose(tw, 1, 0); Tensor r = ops().matmul(tx, wt)) {
                        assertClose("x[1," + k + "] " + types[0] + " " + layout + " · wᵀ[" + k + "," + n + "] " + types[1], r,
                                Numerics.promote(types[0], types[1]), References.matmul(x, w.transpose(1, 0)));
                    }
                });
            }
        }
    }

    @Test
    public void matmulsGiveEachProductsBitsAlone() {
        // what a layer hands over together: one x against several weights used transposed (q, k and v; an expert's gate
        // and up), a rank-3 x, and a right side stored as [k, n], for one decode row and a few prefill rows
        for (DType[] types : typePairs()) {
            qt(3).forAll(integers().between(1, 300), integers().between(1, 70), integers().between(1, 6)).checkAssert((k, n, m) -> {
                Ref x = Gens.uniform(new int[] {1, m, k}, k + 31L * m, 2, types[0]);
                List<Tensor> owned = new ArrayList<>();
                try {
                    Tensor tx = track(owned, input(x, types[0]));
                    Tensor flat = track(owned, ops().reshape(tx, Shape.of(m, k)));
                    List<Tensor> left = new ArrayList<>(), right = new ArrayList<>();
                    for (int i = 0; i < 3; i++) {
                        Tensor w = track(owned, input(Gens.uniform(new int[] {n + 9 * i, k}, 7L * i + n, 0.1, types[1]), types[1]));
                        left.add(i == 1 ? tx : flat);
                        right.add(track(owned, ops().transpose(w, 1, 0)));
                    }
                    left.add(flat);
                    right.add(track(owned, input(Gens.uniform(new int[] {k, n}, 5L * n, 0.1, types[1]), types[1])));
                    List<Tensor> together = ops().matmuls(left, right);
                    owned.addAll(together);
                    for (int i = 0; i < left.size(); i++) {
                        Tensor alone = track(owned, ops().matmul(left.get(i), right.get(i)));
                        assertSameBits("matmuls product " + i + " (" + types[0] + " " + left.get(i).shape() + " × " + types[1] + " "
                                + right.get(i).shape() + ") against matmul alone", alone, together.get(i));
                    }
                } finally {
                    for (Tensor t : owned) t.close();
                }
            });
        }
        try (Tensor a = ops().zeros(Shape.of(2, 3), DType.F32)) {
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> ops().matmuls(List.of(a, a), List.of(a)));
        }
    }

    private static Tensor track(List<Tensor> owned, Tensor t) {
        owned.add(t);
        return t;
    }

    @Test
    public void matmulRefusesMismatchedInnerOrBatchDims() {
        try (Tensor a = ops().zeros(Shape.of(2, 3), DType.F32);
             Tensor b = ops().zeros(Shape.of(4, 5), DType.F32);
             Tensor c = ops().zeros(Shape.of(2, 2, 3), DType.F32);
             Tensor d = ops().zeros(Shape.of(3, 3, 4), DType.F32)) {
            assertRefusedNaming(() -> ops().matmul(a, b), a.shape(), b.shape());
            assertRefusedNaming(() -> ops().matmul(c, d), c.shape(), d.shape());
        }
    }
}
