package panamax.backend.tck;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Reduction;
import panamax.api.tensor.RopeSpec;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.TopK;
import panamax.api.tensor.UnaryOp;

/**
 * The ops again on tensors of model size (10^5 to 10^6 elements), large enough that a backend
 * splits them across threads, vector loops and cache blocks, which the small generated shapes of
 * the other classes may never reach. Inputs come from seeded uniform draws (the same every run);
 * each test runs every combination of its finite choices, or (matmul, rope) every pair of them,
 * counted in its comment: 54 runs on a backend with F32 and BF16 and bits 2, 3, 4, 8, where 4 random
 * picks per property used to reach at most half of each test's combinations. Each float64 reference
 * is made once per dtype and reused across layouts. Same tolerance rule (see {@link BackendTck}).
 */
public abstract class ScaleTck extends BackendTck {

    private List<DType> types() {
        return List.copyOf(supported(DType.F32, DType.BF16));
    }

    private static final List<InputLayout> LAYOUTS = List.of(InputLayout.values());

    @Test
    public void elementwiseOpsOnLargeBroadcastViewsMatchFloat64() {
        // 2 dtypes × 4 layouts = 8 runs
        for (DType dtype : types()) {
            Ref a = Gens.uniform(new int[] {16, 20, 1000}, 1, 3, dtype);
            Ref b = Gens.uniform(new int[] {20, 1}, 2, 3, dtype);
            Ref sum = Ref.zip(a, b, Double::sum);
            Ref silu = a.map(v -> ElementwiseTck.unaryReference(UnaryOp.SILU, v));
            for (InputLayout layout : LAYOUTS) try (Tensor ta = input(a, dtype, layout); Tensor tb = input(b, dtype, layout);
                 Tensor add = ops().binary(BinaryOp.ADD, ta, tb); Tensor s = ops().unary(UnaryOp.SILU, ta)) {
                assertClose("large add " + layout, add, dtype, sum, Ref.zip(a, b, (x, y) -> Math.abs(x) + Math.abs(y)).values());
                assertClose("large silu " + layout, s, dtype, silu, a.map(v -> 0.02 * Math.abs(v)).values());
            }
        }
    }

    @Test
    public void reductionsSoftmaxAndNormsOfLargeRowsMatchFloat64() {
        // 2 dtypes × 4 layouts = 8 runs
        for (DType dtype : types()) {
            Ref x = Gens.uniform(new int[] {96, 2048}, 3, 4, dtype);
            Ref w = Gens.uniform(new int[] {2048}, 4, 1, dtype);
            Expected sumRef = References.reduce(Reduction.SUM, x, 0, false), meanRef = References.reduce(Reduction.MEAN, x, 1, true),
                    softRef = FusedReferences.softmax(x, 1), rmsRef = FusedReferences.rmsNorm(x, w, 1e-6),
                    lnRef = FusedReferences.layerNorm(x, w, w, 1e-5);
            for (InputLayout layout : LAYOUTS) try (Tensor tx = input(x, dtype, layout); Tensor tw = input(w, dtype);
                 Tensor sum0 = ops().reduce(Reduction.SUM, tx, 0, false); Tensor mean1 = ops().reduce(Reduction.MEAN, tx, 1, true);
                 Tensor soft = ops().softmax(tx, -1); Tensor rms = ops().rmsNorm(tx, tw, 1e-6);
                 Tensor ln = ops().layerNorm(tx, tw, tw, 1e-5)) {
                assertClose("large sum axis 0, " + layout, sum0, dtype, sumRef);
                assertClose("large mean axis 1, " + layout, mean1, dtype, meanRef);
                assertClose("large softmax, " + layout, soft, dtype, softRef);
                assertClose("large rmsNorm, " + layout, rms, dtype, rmsRef);
                assertClose("large layerNorm, " + layout, ln, dtype, lnRef);
            }
        }
    }

    @Test
    public void argmaxTopKAndTakeOverAVocabularyMatchTheReference() {
        Ref logits = Gens.uniform(new int[] {4, 32000}, 5, 10, DType.F32);
        Ref table = Gens.uniform(new int[] {32000, 64}, 6, 1, DType.BF16);
        Ref ids = Gens.uniform(new int[] {3, 50}, 7, 1, DType.F32).map(v -> Math.floor((v + 1) * 15999.5));
        try (Tensor tl = input(logits, DType.F32); Tensor tt = input(table, DType.BF16); Tensor ti = input(ids, DType.I32);
             Tensor arg = ops().argmax(tl, -1, false); TopK top = ops().topK(tl, 40); Tensor rows = ops().take(tt, ti, 0)) {
            Ref[] expected = References.topK(logits, 40);
            assertExact("argmax over 32000", arg, DType.I32, References.argmax(logits, 1, false));
            assertExact("topK values over 32000", top.values(), DType.F32, expected[0]);
            assertExact("topK indices over 32000", top.indices(), DType.I32, expected[1]);
            assertExact("embedding rows", rows, DType.BF16, References.take(table, ids, 0));
        }
    }

    @Test
    public void largeMatmulsMatchFloat64() {
        // every pair of choices: each (layout of a, layout of b) once, 16 runs, the dtype alternating so that
        // each of the 2 dtypes meets every layout of a and every layout of b
        List<DType> types = types();
        Map<DType, Ref[]> operands = new EnumMap<>(DType.class);
        Map<DType, Expected> products = new EnumMap<>(DType.class);
        for (DType dtype : types) {
            Ref a = Gens.uniform(new int[] {2, 130, 300}, 8, 1, dtype);
            Ref b = Gens.uniform(new int[] {300, 260}, 9, 1, dtype);
            operands.put(dtype, new Ref[] {a, b});
            products.put(dtype, References.matmul(a, b));
        }
        for (InputLayout la : LAYOUTS) {
            for (InputLayout lb : LAYOUTS) {
                DType dtype = types.get((la.ordinal() + lb.ordinal()) % types.size());
                Ref a = operands.get(dtype)[0], b = operands.get(dtype)[1];
                Expected product = products.get(dtype);
                try (Tensor ta = input(a, dtype, la); Tensor tb = input(b, dtype, lb); Tensor r = ops().matmul(ta, tb)) {
                    assertClose("matmul [2,130,300]x[300,260] " + dtype + " " + la + " " + lb, r, dtype, product);
                }
            }
        }
    }

    @Test
    public void attentionOverALongCacheMatchesFloat64() {
        // 2 dtypes × 3 masks = 6 runs
        for (DType dtype : types()) {
            Ref q = Gens.uniform(new int[] {1, 8, 40, 64}, 10, 1, dtype);
            Ref k = Gens.uniform(new int[] {1, 2, 700, 64}, 11, 1, dtype);
            Ref v = Gens.uniform(new int[] {1, 2, 700, 64}, 12, 2, dtype);
            for (AttentionMask mask : List.of(AttentionMask.NONE, AttentionMask.CAUSAL, new AttentionMask.Causal(128))) {
                int window = mask instanceof AttentionMask.Causal c ? c.window() : 0;
                boolean[][][][] allowed = new boolean[1][8][40][700];
                for (boolean[][][] perHead : allowed) {
                    for (boolean[][] rows : perHead) {
                        for (int i = 0; i < 40; i++) {
                            for (int j = 0; j < 700; j++) {
                                int last = 700 - 40 + i;
                                rows[i][j] = mask instanceof AttentionMask.None || j <= last && (window == 0 || j > last - window);
                            }
                        }
                    }
                }
                try (Tensor tq = input(q, dtype, InputLayout.TRANSPOSED); Tensor tk = input(k, dtype);
                     Tensor tv = input(v, dtype, InputLayout.SLICED);
                     Tensor r = ops().scaledDotProductAttention(tq, tk, tv, 0.125, mask)) {
                    assertClose("attention over 700 keys, mask " + mask, r, dtype,
                            FusedReferences.attention(q, k, v, 0.125, allowed, new double[1][8][40][700]));
                }
            }
        }
    }

    @Test
    public void ropeOfALongPrefillMatchesFloat64() {
        // every pair of choices: each (rotation style, layout) once, 8 runs, the dtype alternating so that each
        // of the 2 dtypes meets both styles and every layout
        int[] offsets = {0, 1000};
        List<DType> types = types();
        for (boolean traditional : new boolean[] {false, true}) {
            RopeSpec spec = new RopeSpec(128, 500000, traditional, 1.0, Optional.empty());
            Map<DType, Ref> inputs = new EnumMap<>(DType.class);
            Map<DType, Expected> rotations = new EnumMap<>(DType.class);
            for (InputLayout layout : LAYOUTS) {
                DType dtype = types.get((layout.ordinal() + (traditional ? 1 : 0)) % types.size());
                Ref x = inputs.computeIfAbsent(dtype, t -> Gens.uniform(new int[] {2, 8, 128, 128}, 13, 2, t));
                Expected rotated = rotations.computeIfAbsent(dtype, t -> FusedReferences.rope(x, spec, offsets));
                try (Tensor tx = input(x, dtype, layout); Tensor to = backend().fromInts(offsets, Shape.of(2), DType.I32);
                     Tensor r = ops().rope(tx, spec, to)) {
                    assertClose("rope [2,8,128,128] " + dtype + " traditional=" + traditional + " " + layout, r, dtype, rotated);
                }
            }
        }
    }

    @Test
    public void quantizeAndQuantizedMatmulOfAWeightMatrixMatchTheReference() {
        // 2 dtypes × the backend's widths among 2, 3, 4, 8 bits (8 runs on the java backend)
        List<Integer> widths = List.of(2, 3, 4, 8).stream().filter(b -> backend().capabilities().quantizedBits().contains(b)).toList();
        org.junit.jupiter.api.Assertions.assertFalse(widths.isEmpty(), "the backend quantizes to none of 2, 3, 4, 8 bits");
        int group = backend().capabilities().groupSizes().contains(64) ? 64 : backend().capabilities().groupSizes().iterator().next();
        for (DType dtype : types()) {
            Ref w = Gens.uniform(new int[] {384, 1024}, 14, 0.05, dtype);
            Ref x = Gens.uniform(new int[] {2, 7, 1024}, 15, 1, dtype);
            for (int bits : widths) {
                AffineReference.Quantized expected = AffineReference.quantize(w.values(), 384, 1024, group, bits, dtype);
                Ref dequantized = new Ref(new int[] {384, 1024},
                        AffineReference.dequantize(expected.codes(), expected.scales(), expected.biases(), 384, 1024, group));
                try (Tensor tw = input(w, dtype); QuantizedMatrix q = ops().quantize(tw, group, bits);
                     Tensor tx = input(x, dtype, InputLayout.SLICED); Tensor r = ops().quantizedMatmul(tx, q, true)) {
                    assertExact("packed of [384,1024] " + bits + " bits", q.packed(), DType.U32,
                            new Ref(new int[] {384, 1024 * bits / 32}, java.util.Arrays.stream(expected.packed()).asDoubleStream().toArray()));
                    assertExact("scales of [384,1024]", q.scales(), dtype, new Ref(new int[] {384, 1024 / group}, expected.scales()));
                    Ref terms = new Ref(new int[] {384, 1024}, AffineReference.productMagnitude(
                            expected.codes(), expected.scales(), expected.biases(), 384, 1024, group, bits));
                    assertClose("quantizedMatmul [2,7,1024]x[384,1024]ᵀ " + bits + " bits", r, dtype,
                            References.matmul(x, dequantized.transpose(1, 0)).value(),
                            References.matmul(x.map(Math::abs), terms.transpose(1, 0)).value().values());
                }
            }
        }
    }
}
