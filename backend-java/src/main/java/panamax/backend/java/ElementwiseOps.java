package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.UnaryOp;
import panamax.backend.java.kernel.F32Elementwise;
import panamax.backend.java.kernel.ScalarMath;
import panamax.backend.java.kernel.VectorMath;

/**
 * Unary, binary, comparison and select ops with numpy broadcasting over any strided views. Floating
 * results compute in f32 (transcendentals in double), integer results in long arithmetic.
 */
final class ElementwiseOps {
    /** Elements a thread takes at least in {@link #contiguousF32}: smaller ops stay on the calling thread, as strided ones do. */
    private static final int CONTIGUOUS_GRAIN = 65536;

    private final JavaBackend backend;

    ElementwiseOps(JavaBackend backend) {
        this.backend = backend;
    }

    JavaTensor unary(UnaryOp op, JavaTensor x) {
        JavaTensor out = backend.allocate(x.dims, x.dtype);
        MemorySegment s = x.segment();
        MemorySegment d = out.segment();
        StridedLoop loop = new StridedLoop(x.dims, new long[] {x.offset, 0}, x.strides, out.strides);
        long xs = loop.innerStrides[0];
        if (x.dtype.isFloating()) {
            loop.execute(backend.parallel, x.elementCount(), () -> {
                float[] buf = new float[loop.runLength()];
                return (base, n) -> {
                    RowIo.load(s, x.dtype, base[0], xs, n, buf);
                    applyUnary(op, buf, n);
                    RowIo.store(d, x.dtype, base[1], 1, n, buf);
                };
            });
        } else {
            loop.execute(backend.parallel, x.elementCount(), () -> {
                long[] buf = new long[loop.runLength()];
                return (base, n) -> {
                    RowIo.load(s, x.dtype, base[0], xs, n, buf);
                    for (int i = 0; i < n; i++) {
                        long v = buf[i];
                        buf[i] = switch (op) {
                            case NEG -> -v;
                            case ABS -> Math.abs(v);
                            case SQUARE -> v * v;
                            default -> DTypes.fromFloat(unaryScalar(op, v), x.dtype);
                        };
                    }
                    RowIo.store(d, x.dtype, base[1], 1, n, buf);
                };
            });
        }
        return out;
    }

    static void applyUnary(UnaryOp op, float[] v, int n) {
        switch (op) {
            case NEG -> { for (int i = 0; i < n; i++) v[i] = -v[i]; }
            case ABS -> { for (int i = 0; i < n; i++) v[i] = Math.abs(v[i]); }
            case SQUARE -> { for (int i = 0; i < n; i++) v[i] = v[i] * v[i]; }
            case SQRT -> { for (int i = 0; i < n; i++) v[i] = (float) Math.sqrt(v[i]); }
            // vectorized: the scalar double exp cost ~13 ns per element (14 ms per batch-8 decode step of a 1B model)
            case SILU -> VectorMath.sigmoidInPlace(v, n, true);
            case SIGMOID -> VectorMath.sigmoidInPlace(v, n, false);
            default -> { for (int i = 0; i < n; i++) v[i] = (float) unaryScalar(op, v[i]); }
        }
    }

    static double unaryScalar(UnaryOp op, double x) {
        return switch (op) {
            case NEG -> -x;
            case ABS -> Math.abs(x);
            case EXP -> Math.exp(x);
            case LOG -> Math.log(x);
            case SQRT -> Math.sqrt(x);
            case RSQRT -> 1 / Math.sqrt(x);
            case SQUARE -> x * x;
            case TANH -> Math.tanh(x);
            case SIGMOID -> ScalarMath.sigmoid(x);
            case SILU -> x * ScalarMath.sigmoid(x);
            case GELU -> ScalarMath.gelu(x);
            case GELU_TANH -> ScalarMath.geluTanh(x);
        };
    }

    JavaTensor binary(BinaryOp op, JavaTensor a, JavaTensor b) {
        DType type = DTypes.promote(a.dtype, b.dtype);
        int[] dims = ViewOps.broadcastShape(op.name().toLowerCase(), a, b);
        if (a.dtype == DType.F32 && b.dtype == DType.F32 && F32Elementwise.supports(op) && Arrays.equals(a.dims, dims)
                && Arrays.equals(b.dims, dims) && a.isContiguous() && b.isContiguous() && a.elementCount() <= Integer.MAX_VALUE) {
            return contiguousF32(op, a, b, dims);
        }
        JavaTensor out = backend.allocate(dims, type);
        MemorySegment sa = a.segment();
        MemorySegment sb = b.segment();
        MemorySegment d = out.segment();
        StridedLoop loop = new StridedLoop(dims, new long[] {a.offset, b.offset, 0},
                ViewOps.broadcastStrides(a, dims, "binary"), ViewOps.broadcastStrides(b, dims, "binary"), out.strides);
        long as = loop.innerStrides[0];
        long bs = loop.innerStrides[1];
        if (type.isFloating()) {
            loop.execute(backend.parallel, out.elementCount(), () -> {
                float[] x = new float[loop.runLength()];
                float[] y = new float[loop.runLength()];
                return (base, n) -> {
                    RowIo.load(sa, a.dtype, base[0], as, n, x);
                    RowIo.load(sb, b.dtype, base[1], bs, n, y);
                    applyBinary(op, x, y, n);
                    RowIo.store(d, type, base[2], 1, n, x);
                };
            });
        } else {
            loop.execute(backend.parallel, out.elementCount(), () -> {
                long[] x = new long[loop.runLength()];
                long[] y = new long[loop.runLength()];
                return (base, n) -> {
                    RowIo.load(sa, a.dtype, base[0], as, n, x);
                    RowIo.load(sb, b.dtype, base[1], bs, n, y);
                    for (int i = 0; i < n; i++) x[i] = binaryLong(op, x[i], y[i]);
                    RowIo.store(d, type, base[2], 1, n, x);
                };
            });
        }
        return out;
    }

    /**
     * Two contiguous f32 operands of the result's shape (a residual add, a gated product): straight between the
     * segments, where the strided loop copied both into arrays and the result back out ({@code Ops.add} of 256 values
     * 0.72 µs a call, a third of it in those copies).
     */
    private JavaTensor contiguousF32(BinaryOp op, JavaTensor a, JavaTensor b, int[] dims) {
        JavaTensor out = backend.allocate(dims, DType.F32);
        MemorySegment sa = a.segment(), sb = b.segment(), d = out.segment();
        long ao = 4L * a.offset, bo = 4L * b.offset, oo = 4L * out.offset;
        backend.parallel.forRange((int) a.elementCount(), CONTIGUOUS_GRAIN, (i0, i1) -> F32Elementwise.binary(op, sa, ao, sb, bo, d, oo, i0, i1));
        return out;
    }

    /** {@code x[i] = op(x[i], y[i])} in f32. */
    static void applyBinary(BinaryOp op, float[] x, float[] y, int n) {
        switch (op) {
            case ADD -> { for (int i = 0; i < n; i++) x[i] += y[i]; }
            case SUB -> { for (int i = 0; i < n; i++) x[i] -= y[i]; }
            case MUL -> { for (int i = 0; i < n; i++) x[i] *= y[i]; }
            case DIV -> { for (int i = 0; i < n; i++) x[i] /= y[i]; }
            case MAXIMUM -> { for (int i = 0; i < n; i++) x[i] = Math.max(x[i], y[i]); }
            case MINIMUM -> { for (int i = 0; i < n; i++) x[i] = Math.min(x[i], y[i]); }
            case POW -> { for (int i = 0; i < n; i++) x[i] = (float) Math.pow(x[i], y[i]); }
        }
    }

    static long binaryLong(BinaryOp op, long x, long y) {
        return switch (op) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            case DIV -> y == 0 ? 0 : x / y;
            case MAXIMUM -> Math.max(x, y);
            case MINIMUM -> Math.min(x, y);
            case POW -> (long) Math.pow(x, y);
        };
    }

    JavaTensor binaryScalar(BinaryOp op, JavaTensor x, double scalar) {
        JavaTensor out = backend.allocate(x.dims, x.dtype);
        MemorySegment s = x.segment();
        MemorySegment d = out.segment();
        StridedLoop loop = new StridedLoop(x.dims, new long[] {x.offset, 0}, x.strides, out.strides);
        long xs = loop.innerStrides[0];
        boolean integer = !x.dtype.isFloating();
        loop.execute(backend.parallel, x.elementCount(), () -> {
            float[] buf = integer ? null : new float[loop.runLength()]; // only the buffers the dtype uses
            long[] lbuf = integer ? new long[loop.runLength()] : null;
            return (base, n) -> {
                if (integer) {
                    RowIo.load(s, x.dtype, base[0], xs, n, lbuf);
                    boolean whole = scalar == Math.rint(scalar) && Math.abs(scalar) < 1L << 53;
                    for (int i = 0; i < n; i++) {
                        lbuf[i] = whole && op != BinaryOp.POW ? binaryLong(op, lbuf[i], (long) scalar)
                                : DTypes.fromFloat(binaryDouble(op, lbuf[i], scalar), x.dtype);
                    }
                    RowIo.store(d, x.dtype, base[1], 1, n, lbuf);
                } else {
                    RowIo.load(s, x.dtype, base[0], xs, n, buf);
                    if (op == BinaryOp.MUL) {
                        float f = (float) scalar;
                        for (int i = 0; i < n; i++) buf[i] *= f;
                    } else {
                        for (int i = 0; i < n; i++) buf[i] = (float) binaryDouble(op, buf[i], scalar);
                    }
                    RowIo.store(d, x.dtype, base[1], 1, n, buf);
                }
            };
        });
        return out;
    }

    static double binaryDouble(BinaryOp op, double x, double y) {
        return switch (op) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            case DIV -> x / y;
            case MAXIMUM -> Math.max(x, y);
            case MINIMUM -> Math.min(x, y);
            case POW -> Math.pow(x, y);
        };
    }

    JavaTensor compare(Comparison op, JavaTensor a, JavaTensor b) {
        int[] dims = ViewOps.broadcastShape("compare", a, b);
        JavaTensor out = backend.allocate(dims, DType.BOOL);
        MemorySegment sa = a.segment();
        MemorySegment sb = b.segment();
        MemorySegment d = out.segment();
        StridedLoop loop = new StridedLoop(dims, new long[] {a.offset, b.offset, 0},
                ViewOps.broadcastStrides(a, dims, "compare"), ViewOps.broadcastStrides(b, dims, "compare"), out.strides);
        long as = loop.innerStrides[0];
        long bs = loop.innerStrides[1];
        boolean integer = !a.dtype.isFloating() && !b.dtype.isFloating();
        loop.execute(backend.parallel, out.elementCount(), () -> {
            float[] x = integer ? null : new float[loop.runLength()]; // only the buffers the dtypes use
            float[] y = integer ? null : new float[loop.runLength()];
            long[] lx = integer ? new long[loop.runLength()] : null;
            long[] ly = integer ? new long[loop.runLength()] : null;
            return (base, n) -> {
                if (integer) {
                    RowIo.load(sa, a.dtype, base[0], as, n, lx);
                    RowIo.load(sb, b.dtype, base[1], bs, n, ly);
                    for (int i = 0; i < n; i++) {
                        d.set(RowIo.I8, base[2] + i, (byte) (test(op, Long.compare(lx[i], ly[i]), false) ? 1 : 0));
                    }
                } else {
                    RowIo.load(sa, a.dtype, base[0], as, n, x);
                    RowIo.load(sb, b.dtype, base[1], bs, n, y);
                    for (int i = 0; i < n; i++) {
                        boolean nan = Float.isNaN(x[i]) || Float.isNaN(y[i]);
                        int c = x[i] < y[i] ? -1 : x[i] > y[i] ? 1 : 0;
                        d.set(RowIo.I8, base[2] + i, (byte) (test(op, c, nan) ? 1 : 0));
                    }
                }
            };
        });
        return out;
    }

    private static boolean test(Comparison op, int c, boolean nan) {
        if (nan) return op == Comparison.NOT_EQUAL;
        return switch (op) {
            case EQUAL -> c == 0;
            case NOT_EQUAL -> c != 0;
            case LESS -> c < 0;
            case LESS_EQUAL -> c <= 0;
            case GREATER -> c > 0;
            case GREATER_EQUAL -> c >= 0;
        };
    }

    JavaTensor where(JavaTensor cond, JavaTensor a, JavaTensor b) {
        DType type = DTypes.promote(a.dtype, b.dtype);
        int[] dims = ViewOps.broadcastShape("where", cond, a, b);
        JavaTensor out = backend.allocate(dims, type);
        MemorySegment sc = cond.segment();
        MemorySegment sa = a.segment();
        MemorySegment sb = b.segment();
        MemorySegment d = out.segment();
        StridedLoop loop = new StridedLoop(dims, new long[] {cond.offset, a.offset, b.offset, 0},
                ViewOps.broadcastStrides(cond, dims, "where"), ViewOps.broadcastStrides(a, dims, "where"),
                ViewOps.broadcastStrides(b, dims, "where"), out.strides);
        long[] in = loop.innerStrides;
        loop.execute(backend.parallel, out.elementCount(), () -> {
            // only the buffers the dtypes use: x also carries a floating condition
            long[] c = new long[loop.runLength()];
            float[] x = type.isFloating() || cond.dtype.isFloating() ? new float[loop.runLength()] : null;
            float[] y = type.isFloating() ? new float[loop.runLength()] : null;
            long[] lx = type.isFloating() ? null : new long[loop.runLength()];
            long[] ly = type.isFloating() ? null : new long[loop.runLength()];
            return (base, n) -> {
                if (cond.dtype.isFloating()) {
                    RowIo.load(sc, cond.dtype, base[0], in[0], n, x);
                    for (int i = 0; i < n; i++) c[i] = x[i] != 0 ? 1 : 0;
                } else {
                    RowIo.load(sc, cond.dtype, base[0], in[0], n, c);
                }
                if (type.isFloating()) {
                    RowIo.load(sa, a.dtype, base[1], in[1], n, x);
                    RowIo.load(sb, b.dtype, base[2], in[2], n, y);
                    for (int i = 0; i < n; i++) if (c[i] == 0) x[i] = y[i];
                    RowIo.store(d, type, base[3], 1, n, x);
                } else {
                    RowIo.load(sa, a.dtype, base[1], in[1], n, lx);
                    RowIo.load(sb, b.dtype, base[2], in[2], n, ly);
                    for (int i = 0; i < n; i++) if (c[i] == 0) lx[i] = ly[i];
                    RowIo.store(d, type, base[3], 1, n, lx);
                }
            };
        });
        return out;
    }
}
