package panamax.backend.tck;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleBinaryOperator;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;

/**
 * Elementwise ops: every {@link UnaryOp}, every {@link BinaryOp} between broadcast tensors and with
 * a scalar, every {@link Comparison}, {@code where}, and the {@code Ops} conveniences, over F32,
 * BF16, F16 and I32 inputs in every layout, with dtype promotion as the api states. The magnitude of
 * an elementwise result is its own size plus, where f32 math cancels (SUB, GELU's tail, sigmoid
 * near 0), the size of its inputs; see {@link BackendTck} for the tolerance rule.
 */
public abstract class ElementwiseTck extends BackendTck {

    static double unaryReference(UnaryOp op, double x) {
        return switch (op) {
            case NEG -> -x;
            case ABS -> Math.abs(x);
            case EXP -> Math.exp(x);
            case LOG -> Math.log(x);
            case SQRT -> Math.sqrt(x);
            case RSQRT -> 1 / Math.sqrt(x);
            case SQUARE -> x * x;
            case TANH -> Math.tanh(x);
            case SIGMOID -> 1 / (1 + Math.exp(-x));
            case SILU -> x / (1 + Math.exp(-x));
            case GELU -> x * Numerics.normalCdf(x);
            case GELU_TANH -> 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
        };
    }

    private static double unaryMagnitude(UnaryOp op, double x, double r) {
        return switch (op) {
            case SIGMOID -> Math.abs(r) + 0.01;
            case SILU, GELU, GELU_TANH -> Math.abs(r) + 0.02 * Math.abs(x);
            default -> Math.abs(r) + 1e-6;
        };
    }

    /** Inputs inside the op's domain: positive for LOG, SQRT and RSQRT. */
    private static double domain(UnaryOp op, double x) {
        return switch (op) {
            case LOG, SQRT, RSQRT -> Math.abs(x) + 0.01;
            default -> x;
        };
    }

    @Test
    public void everyUnaryOpMatchesItsFloat64Definition() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16, DType.F16));
        qt(150).forAll(Generate.enumValues(UnaryOp.class), Gens.oneOf(types), Gens.tensors(Gens.dims(0, 4, 5), DType.F32), Gens.layouts())
                .checkAssert((op, dtype, x0, layout) -> {
                    Ref x = x0.map(v -> Numerics.round(domain(op, dtype == DType.F16 ? Math.max(-6e4, Math.min(6e4, v)) : v), dtype));
                    Ref r = x.map(v -> unaryReference(op, v));
                    double[] mag = new double[x.size()];
                    for (int i = 0; i < mag.length; i++) mag[i] = unaryMagnitude(op, x.values()[i], r.values()[i]);
                    try (Tensor t = input(x, dtype, layout); Tensor out = ops().unary(op, t)) {
                        assertClose(op + " of " + dtype, out, dtype, r, mag);
                    }
                });
    }

    @Test
    public void negAndAbsOfIntegersStayExactIntegers() {
        qt(30).forAll(Gens.tensors(Gens.dims(0, 3, 5), DType.I32), Generate.booleans(), Gens.layouts()).checkAssert((x, neg, layout) -> {
            UnaryOp op = neg ? UnaryOp.NEG : UnaryOp.ABS;
            try (Tensor t = input(x, DType.I32, layout); Tensor out = ops().unary(op, t)) {
                assertExact(op + " of I32", out, DType.I32, x.map(v -> unaryReference(op, v)));
            }
        });
    }

    /** Dims of two operands that broadcast: suffixes of one shape with some axes set to 1. */
    static Gen<int[][]> broadcastDims(int operands) {
        return in -> {
            int[] out = Gens.dims(0, 4, 4).generate(in);
            int[][] dims = new int[operands][];
            for (int k = 0; k < operands; k++) {
                int drop = integers().between(0, out.length).generate(in) / 2;
                int[] d = java.util.Arrays.copyOfRange(out, drop, out.length);
                for (int i = 0; i < d.length; i++) if (integers().between(0, 3).generate(in) == 0) d[i] = 1;
                dims[k] = d;
            }
            return dims;
        };
    }

    static DoubleBinaryOperator binaryReference(BinaryOp op) {
        return switch (op) {
            case ADD -> Double::sum;
            case SUB -> (a, b) -> a - b;
            case MUL -> (a, b) -> a * b;
            case DIV -> (a, b) -> a / b;
            case MAXIMUM -> Math::max;
            case MINIMUM -> Math::min;
            case POW -> Math::pow;
        };
    }

    private static double binaryMagnitude(BinaryOp op, double a, double b, double r) {
        return switch (op) {
            case ADD, SUB -> Math.abs(a) + Math.abs(b);
            case POW -> Math.abs(r) * (1 + Math.abs(b * Math.log(a)));
            default -> Math.abs(r);
        };
    }

    /** Operands inside the op's domain: DIV away from 0, POW with a positive base and |exponent| ≤ 3, integers small. */
    private static Ref operand(BinaryOp op, Ref v, boolean left, DType dtype) {
        Ref x = v;
        if (!dtype.isFloating() || dtype == DType.F16) x = x.map(e -> Math.max(-1000, Math.min(1000, e)));
        if (op == BinaryOp.DIV && !left) x = x.map(e -> Math.abs(e) < 0.01 ? 0.5 : e);
        // integer bases start at 1 so that truncation cannot make them 0
        if (op == BinaryOp.POW) x = left ? x.map(e -> Math.abs(e) + (dtype.isFloating() ? 0.01 : 1)) : x.map(e -> Math.max(-3, Math.min(3, e)));
        return x.map(e -> Numerics.round(e, dtype));
    }

    private List<DType[]> binaryTypePairs(BinaryOp op) {
        List<DType[]> pairs = new ArrayList<>();
        DType[][] all = {{DType.F32, DType.F32}, {DType.BF16, DType.BF16}, {DType.F32, DType.BF16}, {DType.BF16, DType.F16},
                {DType.F16, DType.F32}, {DType.I32, DType.F32}, {DType.BF16, DType.I32}, {DType.I32, DType.I32}};
        for (DType[] p : all) {
            boolean integer = !p[0].isFloating() && !p[1].isFloating();
            if (integer && (op == BinaryOp.DIV || op == BinaryOp.POW)) continue;
            if (supported(p).size() == (p[0] == p[1] ? 1 : 2)) pairs.add(p);
        }
        return pairs;
    }

    @Test
    public void everyBinaryOpBroadcastsAndPromotesItsOperands() {
        Gen<Object[]> cases = Generate.enumValues(BinaryOp.class).flatMap(op -> Gens.oneOf(binaryTypePairs(op))
                .flatMap(types -> broadcastDims(2).flatMap(d -> Gens.values(d[0], DType.F32)
                        .zip(Gens.values(d[1], DType.F32), (a, b) -> new Object[] {op, types, a, b}))));
        qt(200).forAll(Gens.described(cases), Gens.layouts(), Gens.layouts()).checkAssert((c, la, lb) -> {
            BinaryOp op = (BinaryOp) c[0];
            DType[] types = (DType[]) c[1];
            Ref a = operand(op, (Ref) c[2], true, types[0]);
            Ref b = operand(op, (Ref) c[3], false, types[1]);
            DType result = Numerics.promote(types[0], types[1]);
            Ref r = Ref.zip(a, b, binaryReference(op));
            Ref mag = Ref.zip(a, b, (x, y) -> binaryMagnitude(op, x, y, binaryReference(op).applyAsDouble(x, y)));
            try (Tensor ta = input(a, types[0], la); Tensor tb = input(b, types[1], lb); Tensor out = ops().binary(op, ta, tb)) {
                String what = op + " of " + types[0] + " " + a.shape() + " and " + types[1] + " " + b.shape();
                if (result.isFloating()) assertClose(what, out, result, r, mag.values());
                else assertExact(what, out, result, r);
            }
        });
    }

    @Test
    public void binaryOpsRefuseShapesThatDoNotBroadcast() {
        try (Tensor a = ops().zeros(Shape.of(2, 3), DType.F32); Tensor b = ops().zeros(Shape.of(4, 3), DType.F32)) {
            assertRefusedNaming(() -> ops().binary(BinaryOp.ADD, a, b), a.shape(), b.shape());
            assertRefusedNaming(() -> ops().compare(Comparison.LESS, a, b), a.shape(), b.shape());
        }
    }

    @Test
    public void binaryOpsWithAScalarKeepTheTensorDtype() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16, DType.F16, DType.I32));
        qt(120).forAll(Generate.enumValues(BinaryOp.class), Gens.oneOf(types), Gens.tensors(Gens.dims(0, 3, 5), DType.F32),
                Gens.element(Gens.Spread.UNIT).zip(Gens.layouts(), (s, l) -> new Object[] {s, l})).checkAssert((op, dtype, x0, sl) -> {
                    if (!dtype.isFloating() && (op == BinaryOp.DIV || op == BinaryOp.POW)) return;
                    double s0 = (double) sl[0];
                    // the scalar is an f32 (an integer for integer tensors) inside the op's domain
                    double s = (float) (dtype.isFloating() ? (op == BinaryOp.DIV && Math.abs(s0) < 0.01 ? 0.5 : s0) : Math.rint(s0 * 10));
                    double scalar = op == BinaryOp.POW ? Math.max(-3, Math.min(3, s)) : s;
                    Ref x = operand(op, x0, true, dtype);
                    Ref r = x.map(v -> binaryReference(op).applyAsDouble(v, scalar));
                    double[] mag = new double[x.size()];
                    for (int i = 0; i < mag.length; i++) mag[i] = binaryMagnitude(op, x.values()[i], scalar, r.values()[i]);
                    try (Tensor t = input(x, dtype, (InputLayout) sl[1]); Tensor out = ops().binary(op, t, scalar)) {
                        String what = op + " of " + dtype + " " + x.shape() + " with " + scalar;
                        if (dtype.isFloating()) assertClose(what, out, dtype, r, mag);
                        else assertExact(what, out, dtype, r);
                    }
                });
    }

    private static boolean compareReference(Comparison op, double a, double b) {
        return switch (op) {
            case EQUAL -> a == b;
            case NOT_EQUAL -> a != b;
            case LESS -> a < b;
            case LESS_EQUAL -> a <= b;
            case GREATER -> a > b;
            case GREATER_EQUAL -> a >= b;
        };
    }

    @Test
    public void everyComparisonGivesBoolOfBroadcastOperands() {
        List<DType[]> pairs = new ArrayList<>();
        for (DType[] p : new DType[][] {{DType.F32, DType.F32}, {DType.BF16, DType.BF16}, {DType.F32, DType.BF16}, {DType.I32, DType.I32}, {DType.I32, DType.F32}}) {
            if (supported(p).size() == (p[0] == p[1] ? 1 : 2)) pairs.add(p);
        }
        Gen<Object[]> cases = broadcastDims(2).flatMap(d -> Gens.values(d[0], Gens.element(Gens.Spread.SMALL_INTS), DType.F32)
                .zip(Gens.values(d[1], DType.F32), (a, b) -> new Object[] {a, b}));
        qt(100).forAll(Generate.enumValues(Comparison.class), Gens.oneOf(pairs), Gens.described(cases), Gens.layouts()).checkAssert((op, types, c, layout) -> {
            Ref a = ((Ref) c[0]).map(v -> Numerics.round(v, types[0]));
            Ref b = ((Ref) c[1]).map(v -> Numerics.round(Math.max(-1000, Math.min(1000, v)), types[1]));
            Ref r = Ref.zip(a, b, (x, y) -> compareReference(op, x, y) ? 1 : 0);
            try (Tensor ta = input(a, types[0], layout); Tensor tb = input(b, types[1]); Tensor out = ops().compare(op, ta, tb)) {
                assertExact(op + " of " + types[0] + " " + a.shape() + " and " + types[1] + " " + b.shape(), out, DType.BOOL, r);
            }
        });
    }

    @Test
    public void whereSelectsBetweenThreeBroadcastOperands() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16, DType.I32));
        Gen<Ref[]> cases = broadcastDims(3).flatMap(d -> in -> new Ref[] {
                Gens.values(d[0], Gens.element(Gens.Spread.SMALL_INTS), DType.BOOL).generate(in),
                Gens.values(d[1], DType.F32).generate(in), Gens.values(d[2], DType.F32).generate(in)});
        qt(80).forAll(Gens.described(cases), Gens.oneOf(types), Gens.layouts()).checkAssert((c, dtype, layout) -> {
            Ref a = c[1].map(v -> Numerics.round(v, dtype));
            Ref b = c[2].map(v -> Numerics.round(v, dtype));
            int[] dims = Ref.broadcastDims(c[0].dims(), Ref.broadcastDims(a.dims(), b.dims()));
            Ref r = Ref.zeros(dims);
            double[] out = new double[r.size()];
            for (int i = 0; i < out.length; i++) {
                int[] idx = Ref.unravel(i, r.dims());
                out[i] = c[0].broadcastAt(idx) != 0 ? a.broadcastAt(idx) : b.broadcastAt(idx);
            }
            try (Tensor tc = input(c[0], DType.BOOL, layout); Tensor ta = input(a, dtype, layout); Tensor tb = input(b, dtype);
                 Tensor res = ops().where(tc, ta, tb)) {
                assertExact("where " + c[0].shape() + " ? " + a.shape() + " : " + b.shape(), res, dtype, new Ref(r.dims(), out));
            }
        });
    }

    @Test
    public void conveniencesMatchTheirDefinitions() {
        qt(30).forAll(Gens.tensors(Gens.nonEmptyDims(1, 3, 4), DType.F32), Gens.layouts()).checkAssert((x, layout) -> {
            Ref y = x.map(v -> Numerics.round(0.5 + Math.abs(v), DType.F32));
            Ref absSum = Ref.zip(x, y, (a, b) -> Math.abs(a) + Math.abs(b));
            Ref prod = Ref.zip(x, y, (a, b) -> a * b);
            try (Tensor tx = input(x, DType.F32, layout); Tensor ty = input(y, DType.F32);
                 Tensor add = ops().add(tx, ty); Tensor sub = ops().sub(tx, ty); Tensor mul = ops().mul(tx, ty);
                 Tensor div = ops().div(tx, ty); Tensor mulS = ops().mul(tx, 3.0); Tensor addS = ops().add(tx, -2.0);
                 Tensor silu = ops().silu(tx); Tensor gelu = ops().gelu(tx);
                 Tensor sum = ops().sum(tx, -1, true); Tensor max = ops().max(tx, 0, false)) {
                assertClose("add", add, DType.F32, Ref.zip(x, y, Double::sum), absSum.values());
                assertClose("sub", sub, DType.F32, Ref.zip(x, y, (a, b) -> a - b), absSum.values());
                assertClose("mul", mul, DType.F32, prod, prod.map(Math::abs).values());
                Ref quotient = Ref.zip(x, y, (a, b) -> a / b);
                assertClose("div", div, DType.F32, quotient, quotient.map(Math::abs).values());
                assertClose("mul scalar", mulS, DType.F32, x.map(v -> 3 * v), x.map(v -> 3 * Math.abs(v)).values());
                assertClose("add scalar", addS, DType.F32, x.map(v -> v - 2), x.map(v -> Math.abs(v) + 2).values());
                Ref siluR = x.map(v -> unaryReference(UnaryOp.SILU, v));
                assertClose("silu", silu, DType.F32, siluR, x.map(v -> 0.02 * Math.abs(v) + Math.abs(unaryReference(UnaryOp.SILU, v))).values());
                Ref geluR = x.map(v -> unaryReference(UnaryOp.GELU, v));
                assertClose("gelu", gelu, DType.F32, geluR, x.map(v -> 0.02 * Math.abs(v) + Math.abs(unaryReference(UnaryOp.GELU, v))).values());
                assertClose("sum", sum, DType.F32, References.reduce(panamax.api.tensor.Reduction.SUM, x, x.rank() - 1, true));
                assertClose("max", max, DType.F32, References.reduce(panamax.api.tensor.Reduction.MAX, x, 0, false));
            }
        });
    }
}
