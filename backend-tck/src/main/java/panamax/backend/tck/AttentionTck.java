package panamax.backend.tck;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Tensor;

/**
 * {@code scaledDotProductAttention}: grouped-query head ratios 1 to 4, Tq and Tk from 0 up, no mask,
 * causal masks with and without a window, explicit BOOL and additive masks of every broadcastable
 * shape, rows whose keys are all masked (zeros), no keys at all, and transposed or sliced q, k, v.
 * Magnitude: Σ p_j|v_j|·(1 + Σ|q·k_j|·scale) (see {@link FusedReferences#attention} and the rule in
 * {@link BackendTck}).
 */
public abstract class AttentionTck extends BackendTck {

    private enum MaskKind { NONE, CAUSAL, WINDOW, BOOL, ADDITIVE }

    private record Case(Ref q, Ref k, Ref v, double scale, MaskKind kind, int window, Ref mask,
                        InputLayout qLayout, InputLayout kvLayout) {
    }

    private static int draw(RandomnessSource in, int lo, int hi) {
        return integers().between(lo, hi).generate(in);
    }

    private static Gen<Case> cases(int maxT, List<Integer> headDims) {
        return in -> {
            int b = draw(in, 1, 2);
            int hkv = draw(in, 1, 3);
            int hq = hkv * draw(in, 1, 4);
            int tq = draw(in, 1, 5);
            int tk = draw(in, 0, 9) == 0 ? draw(in, 0, 2) : draw(in, 1, maxT);
            int d = Gens.oneOf(headDims).generate(in);
            int dv = draw(in, 1, 8);
            MaskKind kind = Gens.oneOf(List.of(MaskKind.values())).generate(in);
            Ref mask = null;
            if (kind == MaskKind.BOOL || kind == MaskKind.ADDITIVE) {
                int[][] shapes = {{tq, tk}, {1, 1, tq, tk}, {b, hq, tq, tk}, {b, 1, 1, tk}, {1, hq, 1, 1}};
                int[] dims = shapes[draw(in, 0, shapes.length - 1)];
                double[] m = new double[Ref.size(dims)];
                for (int i = 0; i < m.length; i++) {
                    boolean blocked = draw(in, 0, 2) == 0;
                    m[i] = kind == MaskKind.BOOL ? (blocked ? 0 : 1)
                            : blocked ? Double.NEGATIVE_INFINITY : draw(in, -200, 200) * 0.01;
                }
                if (m.length > 0 && draw(in, 0, 1) == 0) {
                    // block a whole last-axis row so some query sees no key
                    int row = draw(in, 0, m.length / dims[dims.length - 1] - 1) * dims[dims.length - 1];
                    for (int j = 0; j < dims[dims.length - 1]; j++) m[row + j] = kind == MaskKind.BOOL ? 0 : Double.NEGATIVE_INFINITY;
                }
                mask = new Ref(dims, m);
            }
            double scale = draw(in, 0, 1) == 0 ? 1 / Math.sqrt(d) : draw(in, 10, 200) * 0.01;
            Gen<Double> unit = Gens.element(Gens.Spread.UNIT);
            return new Case(Gens.values(new int[] {b, hq, tq, d}, unit, DType.F32).generate(in),
                    Gens.values(new int[] {b, hkv, tk, d}, unit, DType.F32).generate(in),
                    Gens.values(new int[] {b, hkv, tk, dv}, DType.F32).generate(in),
                    scale, kind, draw(in, 1, 4), mask, Gens.layouts().generate(in), Gens.layouts().generate(in));
        };
    }

    /** Which keys each query may see, and the additive bias, for the float64 reference. */
    private static void reference(Case c, boolean[][][][] allowed, double[][][][] bias) {
        int tq = c.q.dim(2);
        int tk = c.k.dim(2);
        for (int b = 0; b < allowed.length; b++) {
            for (int h = 0; h < allowed[b].length; h++) {
                for (int i = 0; i < tq; i++) {
                    for (int j = 0; j < tk; j++) {
                        int last = tk - tq + i;
                        double m = c.mask == null ? 0 : c.mask.broadcastAt(new int[] {b, h, i, j});
                        allowed[b][h][i][j] = switch (c.kind) {
                            case NONE -> true;
                            case CAUSAL -> j <= last;
                            case WINDOW -> j <= last && j > last - c.window;
                            case BOOL -> m != 0;
                            case ADDITIVE -> m != Double.NEGATIVE_INFINITY;
                        };
                        bias[b][h][i][j] = c.kind == MaskKind.ADDITIVE && allowed[b][h][i][j] ? m : 0;
                    }
                }
            }
        }
    }

    private void check(Case c, DType dtype) {
        Ref q = c.q.map(x -> Numerics.round(x, dtype));
        Ref k = c.k.map(x -> Numerics.round(x, dtype));
        Ref v = c.v.map(x -> Numerics.round(x, dtype));
        Ref mask = c.mask == null ? null : c.mask.map(x -> Numerics.round(x, c.kind == MaskKind.BOOL ? DType.BOOL : dtype));
        Case rounded = new Case(q, k, v, c.scale, c.kind, c.window, mask, c.qLayout, c.kvLayout);
        int bs = q.dim(0);
        int hq = q.dim(1);
        boolean[][][][] allowed = new boolean[bs][hq][q.dim(2)][k.dim(2)];
        double[][][][] bias = new double[bs][hq][q.dim(2)][k.dim(2)];
        reference(rounded, allowed, bias);
        Expected expected = FusedReferences.attention(q, k, v, c.scale, allowed, bias);
        try (Tensor tq = input(q, dtype, c.qLayout); Tensor tk = input(k, dtype, c.kvLayout); Tensor tv = input(v, dtype, c.kvLayout);
             Tensor tm = mask == null ? null : input(mask, c.kind == MaskKind.BOOL ? DType.BOOL : dtype, c.qLayout)) {
            AttentionMask m = switch (c.kind) {
                case NONE -> AttentionMask.NONE;
                case CAUSAL -> AttentionMask.CAUSAL;
                case WINDOW -> new AttentionMask.Causal(c.window);
                case BOOL, ADDITIVE -> new AttentionMask.Explicit(tm);
            };
            try (Tensor r = ops().scaledDotProductAttention(tq, tk, tv, c.scale, m)) {
                assertClose("attention " + dtype + " q" + q.shape() + " k" + k.shape() + " v" + v.shape() + " mask " + c.kind
                        + (c.kind == MaskKind.WINDOW ? "(" + c.window + ")" : mask == null ? "" : " " + mask), r, dtype, expected);
            }
        }
    }

    @Test
    public void attentionMatchesFloat64ForEveryMaskKindAndHeadRatio() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(200).forAll(cases(7, List.of(1, 2, 3, 4, 8)), Gens.oneOf(types)).checkAssert(this::check);
    }

    @Test
    public void attentionOverLongContextsMatchesFloat64() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(12).forAll(cases(300, List.of(64, 80, 128)), Gens.oneOf(types)).checkAssert(this::check);
    }

    @Test
    public void attentionOverNoKeysGivesZeros() {
        for (AttentionMask mask : List.of(AttentionMask.NONE, AttentionMask.CAUSAL)) {
            try (Tensor q = ops().full(panamax.api.tensor.Shape.of(1, 2, 3, 4), 1.0, DType.F32);
                 Tensor k = ops().zeros(panamax.api.tensor.Shape.of(1, 1, 0, 4), DType.F32);
                 Tensor v = ops().zeros(panamax.api.tensor.Shape.of(1, 1, 0, 5), DType.F32);
                 Tensor r = ops().scaledDotProductAttention(q, k, v, 0.5, mask)) {
                assertExact("attention over no keys, mask " + mask, r, DType.F32, Ref.zeros(1, 2, 3, 5));
            }
        }
    }
}
