package panamax.api.tensor.kernel;

import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;

/**
 * The validated geometry of {@link AffineKvKernels#quantizedAttention}'s and {@link CodebookAttentionKernels#codebookAttention}'s arguments: q {@code [B, Hq, Tq, D]},
 * keys of D columns and values of Dv columns, both packed {@code [B, Hkv, Tk, ·]}, Hq a multiple of
 * Hkv. Kernels and their composed fallbacks check their arguments with {@link #of} too, so every backend
 * refuses the same inputs with the same message.
 */
public record QuantizedAttentionShape(int b, int hq, int tq, int d, int hkv, int tk, int dv) {

    /**
     * The shape of a valid call.
     *
     * @throws IllegalArgumentException naming the argument and the expected and found shapes
     */
    public static QuantizedAttentionShape of(Tensor q, QuantizedMatrix keys, QuantizedMatrix values) {
        if (q.rank() != 4) throw new IllegalArgumentException("quantizedAttention: expected q [B, Hq, Tq, D], found " + q.shape());
        Tensor kp = keys.packed();
        Tensor vp = values.packed();
        if (kp.rank() != 4 || keys.scales().rank() != 4) {
            throw new IllegalArgumentException("quantizedAttention: expected keys packed [B, Hkv, Tk, D·bits/32] with scales [B, Hkv, Tk, D/group], found "
                    + kp.shape() + " and " + keys.scales().shape());
        }
        if (vp.rank() != 4 || values.scales().rank() != 4) {
            throw new IllegalArgumentException("quantizedAttention: expected values packed [B, Hkv, Tk, Dv·bits/32] with scales [B, Hkv, Tk, Dv/group], found "
                    + vp.shape() + " and " + values.scales().shape());
        }
        int b = q.dim(0), hq = q.dim(1), tq = q.dim(2), d = q.dim(3);
        int hkv = kp.dim(1), tk = kp.dim(2);
        if (keys.cols() != d || (long) d * keys.bits() / 32 != kp.dim(3)) {
            throw new IllegalArgumentException("quantizedAttention: keys " + kp.shape() + " (" + keys.bits() + "-bit, scales "
                    + keys.scales().shape() + ") do not hold D = " + d + " columns of q " + q.shape());
        }
        if (kp.dim(0) != b || vp.dim(0) != b || vp.dim(1) != hkv || vp.dim(2) != tk || hkv == 0 || hq % hkv != 0) {
            throw new IllegalArgumentException("quantizedAttention: q " + q.shape() + ", keys " + kp.shape() + " and values " + vp.shape()
                    + " do not fit: expected keys and values [" + b + ", Hkv, Tk, ·] with Hq = " + hq + " a multiple of Hkv");
        }
        int dv = values.cols();
        if ((long) dv * values.bits() / 32 != vp.dim(3)) {
            throw new IllegalArgumentException("quantizedAttention: values " + vp.shape() + " do not hold " + dv + " " + values.bits()
                    + "-bit columns (scales " + values.scales().shape() + ")");
        }
        return new QuantizedAttentionShape(b, hq, tq, d, hkv, tk, dv);
    }

    /**
     * The shape of a valid {@link CodebookAttentionKernels#codebookAttention} call.
     *
     * @throws IllegalArgumentException naming the argument and the expected and found shapes
     */
    public static QuantizedAttentionShape of(Tensor q, CodebookMatrix keys, CodebookMatrix values) {
        if (q.rank() != 4) throw new IllegalArgumentException("codebookAttention: expected q [B, Hq, Tq, D], found " + q.shape());
        Tensor kp = keys.packed();
        Tensor vp = values.packed();
        if (kp.rank() != 4 || vp.rank() != 4) {
            throw new IllegalArgumentException("codebookAttention: expected keys and values packed [B, Hkv, Tk, ·], found " + kp.shape()
                    + " and " + vp.shape());
        }
        int b = q.dim(0), hq = q.dim(1), tq = q.dim(2), d = q.dim(3);
        int hkv = kp.dim(1), tk = kp.dim(2);
        if (keys.cols() != d) {
            throw new IllegalArgumentException("codebookAttention: keys " + kp.shape() + " (" + keys.bits() + "-bit) hold " + keys.cols()
                    + " columns, q " + q.shape() + " has D = " + d);
        }
        if (kp.dim(0) != b || vp.dim(0) != b || vp.dim(1) != hkv || vp.dim(2) != tk || hkv == 0 || hq % hkv != 0) {
            throw new IllegalArgumentException("codebookAttention: q " + q.shape() + ", keys " + kp.shape() + " and values " + vp.shape()
                    + " do not fit: expected keys and values [" + b + ", Hkv, Tk, ·] with Hq = " + hq + " a multiple of Hkv");
        }
        return new QuantizedAttentionShape(b, hq, tq, d, hkv, tk, values.cols());
    }

    /**
     * The shape of a valid sketched {@link CodebookAttentionKernels#codebookAttention} call: each query tensor valid against its
     * keys and the values, the two agreeing on every axis but their last ({@link #d()} is q's).
     *
     * @throws IllegalArgumentException naming the argument and the expected and found shapes
     */
    public static QuantizedAttentionShape of(Tensor q, CodebookMatrix keys, Tensor qs, CodebookMatrix sketch, CodebookMatrix values) {
        QuantizedAttentionShape main = of(q, keys, values);
        QuantizedAttentionShape sketched = of(qs, sketch, values);
        if (main.b() != sketched.b() || main.hq() != sketched.hq() || main.tq() != sketched.tq() || main.hkv() != sketched.hkv()
                || main.tk() != sketched.tk()) {
            throw new IllegalArgumentException("codebookAttention: sketch queries " + qs.shape() + " and sketch " + sketch.packed().shape()
                    + " do not fit q " + q.shape() + " and keys " + keys.packed().shape() + ": expected the same B, Hq, Tq, Hkv and Tk");
        }
        return main;
    }
}
