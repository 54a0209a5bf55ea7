package panamax.backend.tck;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.api.tensor.kernel.AffineKvKernels;

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

    /** An explicit BOOL or additive mask of a broadcastable shape (null for the other kinds), sometimes blocking a whole row. */
    private static Ref mask(RandomnessSource in, MaskKind kind, int b, int hq, int tq, int tk) {
        if (kind != MaskKind.BOOL && kind != MaskKind.ADDITIVE) return null;
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
        return new Ref(dims, m);
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
            Ref mask = mask(in, kind, b, hq, tq, tk);
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
        Ref mask = roundedMask(c, dtype);
        Expected expected = expected(c, q, k, v, k, v, mask);
        try (Tensor tq = input(q, dtype, c.qLayout); Tensor tk = input(k, dtype, c.kvLayout); Tensor tv = input(v, dtype, c.kvLayout);
             Tensor tm = mask == null ? null : input(mask, c.kind == MaskKind.BOOL ? DType.BOOL : dtype, c.qLayout)) {
            try (Tensor r = ops().scaledDotProductAttention(tq, tk, tv, c.scale, mask(c, tm))) {
                assertClose("attention " + dtype + " q" + q.shape() + " k" + k.shape() + " v" + v.shape() + " " + describe(c, mask), r, dtype, expected);
            }
        }
    }

    private static Ref roundedMask(Case c, DType dtype) {
        return c.mask == null ? null : c.mask.map(x -> Numerics.round(x, c.kind == MaskKind.BOOL ? DType.BOOL : dtype));
    }

    private static String describe(Case c, Ref mask) {
        return "mask " + c.kind + (c.kind == MaskKind.WINDOW ? "(" + c.window + ")" : mask == null ? "" : " " + mask);
    }

    /** The float64 result over the given (already rounded) q, k, v and mask, with the sizes of k's and v's terms. */
    private static Expected expected(Case c, Ref q, Ref k, Ref v, Ref kSizes, Ref vSizes, Ref mask) {
        Case rounded = new Case(q, k, v, c.scale, c.kind, c.window, mask, c.qLayout, c.kvLayout);
        int bs = q.dim(0);
        int hq = q.dim(1);
        boolean[][][][] allowed = new boolean[bs][hq][q.dim(2)][k.dim(2)];
        double[][][][] bias = new double[bs][hq][q.dim(2)][k.dim(2)];
        reference(rounded, allowed, bias);
        return FusedReferences.attention(q, k, v, kSizes, vSizes, c.scale, allowed, bias);
    }

    private static AttentionMask mask(Case c, Tensor explicit) {
        return switch (c.kind) {
            case NONE -> AttentionMask.NONE;
            case CAUSAL -> AttentionMask.CAUSAL;
            case WINDOW -> new AttentionMask.Causal(c.window);
            case BOOL, ADDITIVE -> new AttentionMask.Explicit(explicit);
        };
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

    // ---- quantizedAttention: attention over an affine-quantized cache ----

    /**
     * The kernel whose {@code quantizedAttention} is checked: the backend's {@link AffineKvKernels}
     * (tests skip when it offers none); a subclass may hand in a composition instead. Cases the kernel
     * declines are not checked here; a test where it declines every case is reported as skipped.
     */
    protected AffineKvKernels affineKvKernels() {
        return kernel(AffineKvKernels.class);
    }

    /** Cases {@link #affineKvKernels()} served in the running test. */
    private int served;

    private record QuantizedCase(Case c, DType cacheType, int keyBits, int keyGroup, int valueBits, int valueGroup) {
        @Override
        public String toString() {
            return "keys " + keyBits + "-bit/g" + keyGroup + ", values " + valueBits + "-bit/g" + valueGroup + " from " + cacheType
                    + ", q" + c.q.shape() + " k" + c.k.shape() + " v" + c.v.shape() + ", " + c.kind;
        }
    }

    /**
     * Head dims 32, 64 and 128 with every bit width and group size (2, 4 and 8 bits are what fast kernels
     * serve; 3, 5 and 6 exercise the rest), 1–12 query rows per kv head (a fused kernel's row blocks
     * and their remainders), every mask kind.
     */
    private static Gen<QuantizedCase> quantizedCases(int maxT, List<DType> cacheTypes) {
        return in -> {
            int b = draw(in, 1, 2);
            int hkv = draw(in, 1, 2);
            int hq = hkv * draw(in, 1, 6);
            int tq = draw(in, 1, 2);
            // a fifth of the short-cache cases reach 64-150 keys: several of a kernel's tiles and blocks of keys
            int tk = draw(in, 0, 9) == 0 ? draw(in, 0, 2) : maxT < 64 && draw(in, 0, 4) == 0 ? draw(in, 64, 150) : draw(in, 1, maxT);
            int d = Gens.oneOf(List.of(32, 64, 128)).generate(in);
            int dv = Gens.oneOf(List.of(32, 64, 128)).generate(in); // 32: half a CodeRows piece
            MaskKind kind = Gens.oneOf(List.of(MaskKind.values())).generate(in);
            Ref mask = mask(in, kind, b, hq, tq, tk);
            double scale = draw(in, 0, 1) == 0 ? 1 / Math.sqrt(d) : draw(in, 10, 200) * 0.01;
            Gen<Double> unit = Gens.element(Gens.Spread.UNIT);
            Case c = new Case(Gens.values(new int[] {b, hq, tq, d}, unit, DType.F32).generate(in),
                    Gens.values(new int[] {b, hkv, tk, d}, unit, DType.F32).generate(in),
                    Gens.values(new int[] {b, hkv, tk, dv}, DType.F32).generate(in),
                    scale, kind, draw(in, 1, 4), mask, Gens.layouts().generate(in), InputLayout.CONTIGUOUS);
            List<Integer> bits = List.of(2, 3, 4, 5, 6, 8);
            List<Integer> groups = List.of(32, 64, 128);
            int keyGroup = Gens.oneOf(groups.stream().filter(g -> d % g == 0).toList()).generate(in);
            int valueGroup = Gens.oneOf(groups.stream().filter(g -> dv % g == 0).toList()).generate(in);
            return new QuantizedCase(c, Gens.oneOf(cacheTypes).generate(in), Gens.oneOf(bits).generate(in), keyGroup,
                    Gens.oneOf(bits).generate(in), valueGroup);
        };
    }

    /** {@code (values, term sizes |q·s| + |b|)} of a quantized matrix, read in f32. */
    private Ref[] dequantized(QuantizedMatrix w) {
        try (Tensor s = ops().astype(w.scales(), DType.F32); Tensor b = ops().astype(w.biases(), DType.F32);
             Tensor as = ops().unary(UnaryOp.ABS, s); Tensor ab = ops().unary(UnaryOp.ABS, b)) {
            // borrowed views of the codes: these matrices are not closed
            QuantizedMatrix values = new QuantizedMatrix(w.packed(), s, b, w.groupSize(), w.bits());
            QuantizedMatrix sizes = new QuantizedMatrix(w.packed(), as, ab, w.groupSize(), w.bits());
            try (Tensor dv = ops().dequantize(values); Tensor ds = ops().dequantize(sizes)) {
                return new Ref[] {read(dv), read(ds)};
            }
        }
    }

    private void checkQuantized(QuantizedCase qc, DType dtype) {
        Case c = qc.c;
        Ref q = c.q.map(x -> Numerics.round(x, dtype));
        Ref mask = roundedMask(c, dtype);
        try (Tensor kIn = input(c.k, qc.cacheType); Tensor vIn = input(c.v, qc.cacheType);
             QuantizedMatrix keys = ops().quantize(kIn, qc.keyGroup, qc.keyBits);
             QuantizedMatrix values = ops().quantize(vIn, qc.valueGroup, qc.valueBits)) {
            Ref[] k = dequantized(keys);
            Ref[] v = dequantized(values);
            Expected expected = expected(c, q, k[0], v[0], k[1], v[1], mask);
            try (Tensor tq = input(q, dtype, c.qLayout);
                 Tensor tm = mask == null ? null : input(mask, c.kind == MaskKind.BOOL ? DType.BOOL : dtype, c.qLayout)) {
                Optional<Tensor> fused = affineKvKernels().quantizedAttention(tq, keys, values, c.scale, mask(c, tm));
                if (fused.isEmpty()) return; // a format the kernel does not serve: its caller composes it
                try (Tensor r = fused.get()) {
                    assertClose("quantizedAttention q " + dtype + ", " + qc + " " + describe(c, mask), r, dtype, expected);
                }
                served++;
            }
        }
    }

    @Test
    public void quantizedAttentionMatchesFloat64OverTheDequantizedCache() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        served = 0;
        qt(120).forAll(quantizedCases(40, types), Gens.oneOf(types)).checkAssert(this::checkQuantized);
        Assumptions.assumeTrue(served > 0, "quantizedAttention declined every case: the backend composes it here (e.g. vectors too narrow for its kernel)");
    }

    @Test
    public void quantizedAttentionOverLongContextsMatchesFloat64() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        served = 0;
        qt(10).forAll(quantizedCases(400, types), Gens.oneOf(types)).checkAssert(this::checkQuantized);
        Assumptions.assumeTrue(served > 0, "quantizedAttention declined every case: the backend composes it here (e.g. vectors too narrow for its kernel)");
    }

    @Test
    public void quantizedAttentionRefusesMismatchedShapesNamingThem() {
        AffineKvKernels kernels = affineKvKernels();
        try (Tensor q = ops().zeros(Shape.of(1, 4, 1, 64), DType.F32); Tensor k = ops().zeros(Shape.of(1, 3, 5, 64), DType.F32);
             QuantizedMatrix keys = ops().quantize(k, 64, 4); QuantizedMatrix values = ops().quantize(k, 64, 4)) {
            // 4 query heads over 3 kv heads
            assertRefusedNaming(() -> kernels.quantizedAttention(q, keys, values, 1, AttentionMask.CAUSAL),
                    q.shape(), keys.packed().shape());
        }
        try (Tensor q = ops().zeros(Shape.of(1, 2, 1, 128), DType.F32); Tensor k = ops().zeros(Shape.of(1, 1, 5, 64), DType.F32);
             QuantizedMatrix keys = ops().quantize(k, 64, 4); QuantizedMatrix values = ops().quantize(k, 64, 4)) {
            // head dim 128 against 64-column keys
            assertRefusedNaming(() -> kernels.quantizedAttention(q, keys, values, 1, AttentionMask.NONE),
                    q.shape(), keys.packed().shape());
        }
    }
}
