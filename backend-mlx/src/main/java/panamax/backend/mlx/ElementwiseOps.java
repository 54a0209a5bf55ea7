package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.MemorySegment;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.UnaryOp;

/**
 * Elementwise ops with the api's dtype rules: floating math in f32 rounded once to the result
 * dtype; integer arithmetic exact in the promoted integer type (division truncates, by zero gives
 * 0). Shapes broadcast by numpy rules; a mismatch names both shapes.
 */
final class ElementwiseOps extends OpFamily {
    private static final double SQRT_HALF = Math.sqrt(0.5);
    private static final double SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

    ElementwiseOps(MlxBackend backend) {
        super(backend);
    }

    MlxTensor unary(UnaryOp op, MlxTensor x) {
        return op(t -> {
            MemorySegment a = x.array(t);
            boolean integer = !x.dtype.isFloating();
            if (integer && (op == UnaryOp.NEG || op == UnaryOp.ABS || op == UnaryOp.SQUARE)) {
                return result(unary(t, op, a), x.dtype);
            }
            return result(unary(t, op, cast(t, a, DType.F32)), x.dtype);
        });
    }

    private MemorySegment unary(Temps t, UnaryOp op, MemorySegment x) {
        return switch (op) {
            case NEG -> t.call("negative", r -> mlx_negative(r, x, s()));
            case ABS -> t.call("abs", r -> mlx_abs(r, x, s()));
            case EXP -> t.call("exp", r -> mlx_exp(r, x, s()));
            case LOG -> t.call("log", r -> mlx_log(r, x, s()));
            case SQRT -> t.call("sqrt", r -> mlx_sqrt(r, x, s()));
            case RSQRT -> t.call("rsqrt", r -> mlx_rsqrt(r, x, s()));
            case SQUARE -> t.call("square", r -> mlx_square(r, x, s()));
            case TANH -> t.call("tanh", r -> mlx_tanh(r, x, s()));
            case SIGMOID -> t.call("sigmoid", r -> mlx_sigmoid(r, x, s()));
            case SILU -> mul(t, x, t.call("sigmoid", r -> mlx_sigmoid(r, x, s())));
            case GELU -> {
                // x·Φ(x) = 0.5·x·(1 + erf(x/√2))
                MemorySegment scaled = mul(t, x, scalar(t, SQRT_HALF, DType.F32));
                MemorySegment erf = t.call("erf", r -> mlx_erf(r, scaled, s()));
                yield mul(t, mul(t, x, scalar(t, 0.5, DType.F32)), add(t, erf, scalar(t, 1, DType.F32)));
            }
            case GELU_TANH -> {
                MemorySegment cube = mul(t, mul(t, x, x), x);
                MemorySegment inner = mul(t, add(t, x, mul(t, cube, scalar(t, 0.044715, DType.F32))),
                        scalar(t, SQRT_2_OVER_PI, DType.F32));
                MemorySegment tanh = t.call("tanh", r -> mlx_tanh(r, inner, s()));
                yield mul(t, mul(t, x, scalar(t, 0.5, DType.F32)), add(t, tanh, scalar(t, 1, DType.F32)));
            }
        };
    }

    MemorySegment mul(Temps t, MemorySegment a, MemorySegment b) {
        return t.call("multiply", r -> mlx_multiply(r, a, b, s()));
    }

    MemorySegment add(Temps t, MemorySegment a, MemorySegment b) {
        return t.call("add", r -> mlx_add(r, a, b, s()));
    }

    MlxTensor binary(BinaryOp op, MlxTensor a, MlxTensor b) {
        ViewOps.broadcastShape(op.name().toLowerCase(java.util.Locale.ROOT), a.dims, b.dims);
        DType type = promote(a.dtype, b.dtype);
        return op(t -> {
            DType compute = type.isFloating() ? DType.F32 : type;
            MemorySegment x = cast(t, a.array(t), compute);
            MemorySegment y = cast(t, b.array(t), compute);
            return result(binary(t, op, x, y, type.isFloating()), type);
        });
    }

    MlxTensor binaryScalar(BinaryOp op, MlxTensor x, double scalar) {
        return op(t -> {
            boolean integer = !x.dtype.isFloating() && isWhole(scalar) && op != BinaryOp.POW;
            DType compute = integer ? (x.dtype == DType.U32 ? DType.U32 : DType.I32) : DType.F32;
            MemorySegment a = cast(t, x.array(t), compute);
            MemorySegment b = scalar(t, scalar, compute);
            return result(binary(t, op, a, b, !integer), x.dtype);
        });
    }

    private MemorySegment binary(Temps t, BinaryOp op, MemorySegment x, MemorySegment y, boolean floating) {
        return switch (op) {
            case ADD -> add(t, x, y);
            case SUB -> t.call("subtract", r -> mlx_subtract(r, x, y, s()));
            case MUL -> mul(t, x, y);
            case DIV -> floating ? t.call("divide", r -> mlx_divide(r, x, y, s())) : truncatedDivide(t, x, y);
            case MAXIMUM -> t.call("maximum", r -> mlx_maximum(r, x, y, s()));
            case MINIMUM -> t.call("minimum", r -> mlx_minimum(r, x, y, s()));
            case POW -> t.call("power", r -> mlx_power(r, x, y, s()));
        };
    }

    /** Integer {@code x / y} rounded toward zero, 0 where {@code y == 0} (MLX would trap). */
    private MemorySegment truncatedDivide(Temps t, MemorySegment x, MemorySegment y) {
        DType type = Mlx.dtype(x);
        MemorySegment zero = scalar(t, 0, type);
        MemorySegment one = scalar(t, 1, type);
        MemorySegment isZero = t.call("equal", r -> mlx_equal(r, y, zero, s()));
        MemorySegment safe = t.call("where", r -> mlx_where(r, isZero, one, y, s()));
        MemorySegment floor = t.call("floor_divide", r -> mlx_floor_divide(r, x, safe, s()));
        MemorySegment rest = t.call("remainder", r -> mlx_remainder(r, x, safe, s()));
        // floor and truncation differ when the remainder is non-zero and the signs differ
        MemorySegment inexact = t.call("not_equal", r -> mlx_not_equal(r, rest, zero, s()));
        MemorySegment xNeg = t.call("less", r -> mlx_less(r, x, zero, s()));
        MemorySegment yNeg = t.call("less", r -> mlx_less(r, safe, zero, s()));
        MemorySegment signsDiffer = t.call("not_equal", r -> mlx_not_equal(r, xNeg, yNeg, s()));
        MemorySegment fix = t.call("logical_and", r -> mlx_logical_and(r, inexact, signsDiffer, s()));
        MemorySegment up = add(t, floor, one);
        MemorySegment trunc = t.call("where", r -> mlx_where(r, fix, up, floor, s()));
        return t.call("where", r -> mlx_where(r, isZero, zero, trunc, s()));
    }

    MlxTensor compare(Comparison op, MlxTensor a, MlxTensor b) {
        ViewOps.broadcastShape("compare", a.dims, b.dims);
        DType type = promote(a.dtype, b.dtype);
        return op(t -> {
            DType compute = type.isFloating() ? DType.F32 : type;
            MemorySegment x = cast(t, a.array(t), compute);
            MemorySegment y = cast(t, b.array(t), compute);
            return backend.wrap(Mlx.call("compare", r -> switch (op) {
                case EQUAL -> mlx_equal(r, x, y, s());
                case NOT_EQUAL -> mlx_not_equal(r, x, y, s());
                case LESS -> mlx_less(r, x, y, s());
                case LESS_EQUAL -> mlx_less_equal(r, x, y, s());
                case GREATER -> mlx_greater(r, x, y, s());
                case GREATER_EQUAL -> mlx_greater_equal(r, x, y, s());
            }));
        });
    }

    MlxTensor where(MlxTensor cond, MlxTensor a, MlxTensor b) {
        int[] ab = ViewOps.broadcastShape("where", a.dims, b.dims);
        ViewOps.broadcastShape("where", cond.dims, ab);
        DType type = promote(a.dtype, b.dtype);
        return op(t -> {
            MemorySegment c = cast(t, cond.array(t), DType.BOOL);
            MemorySegment x = cast(t, a.array(t), type);
            MemorySegment y = cast(t, b.array(t), type);
            return backend.wrap(Mlx.call("where", r -> mlx_where(r, c, x, y, s())));
        });
    }
}
