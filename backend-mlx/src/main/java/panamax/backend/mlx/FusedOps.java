package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.RopeSpec;

/**
 * MLX's {@code fast} ops — RMSNorm, LayerNorm, RoPE with per-row offsets, and scaled-dot-product
 * attention — on f32 inputs, results rounded once to x's (q's) dtype.
 */
final class FusedOps extends OpFamily {
    FusedOps(MlxBackend backend) {
        super(backend);
    }

    private static void checkVector(String name, MlxTensor w, MlxTensor x) {
        int d = x.dims[x.dims.length - 1];
        if (w != null && (w.dims.length != 1 || w.dims[0] != d)) {
            throw new IllegalArgumentException(name + ": expected shape [" + d + "] for " + x.shape() + ", found " + w.shape());
        }
    }

    private MemorySegment optional(Temps t, MlxTensor w) {
        return w == null ? Mlx.NO_ARRAY : cast(t, w.array(t), DType.F32);
    }

    MlxTensor rmsNorm(MlxTensor x, MlxTensor weight, double eps) {
        if (x.dims.length == 0) throw new IllegalArgumentException("rmsNorm: expected at least one axis, found a scalar");
        checkVector("weight", weight, x);
        return op(t -> {
            MemorySegment in = cast(t, x.array(t), DType.F32);
            MemorySegment w = optional(t, weight);
            return result(t.call("rms_norm", r -> mlx_fast_rms_norm(r, in, w, (float) eps, s())), x.dtype);
        });
    }

    MlxTensor layerNorm(MlxTensor x, MlxTensor weight, MlxTensor bias, double eps) {
        if (x.dims.length == 0) throw new IllegalArgumentException("layerNorm: expected at least one axis, found a scalar");
        checkVector("weight", weight, x);
        checkVector("bias", bias, x);
        return op(t -> {
            MemorySegment in = cast(t, x.array(t), DType.F32);
            MemorySegment w = optional(t, weight);
            MemorySegment b = optional(t, bias);
            return result(t.call("layer_norm", r -> mlx_fast_layer_norm(r, in, w, b, (float) eps, s())), x.dtype);
        });
    }

    MlxTensor rope(MlxTensor x, RopeSpec spec, MlxTensor offsets) {
        if (x.dims.length < 2) throw new IllegalArgumentException("rope: expected x of rank >= 2, found " + x.shape());
        int d = x.dims[x.dims.length - 1];
        if (spec.dims() > d) throw new IllegalArgumentException("rope: dims " + spec.dims() + " exceed head dimension " + d + " of " + x.shape());
        int b = x.dims.length == 2 ? 1 : x.dims[0];
        if (offsets.dims.length != 1 || offsets.dims[0] != b && offsets.dims[0] != 1) {
            throw new IllegalArgumentException("rope: offsets must have " + b + " or 1 entries for " + x.shape() + ", found " + offsets.shape());
        }
        if (offsets.dtype.isFloating()) throw new IllegalArgumentException("rope: offsets must be integers, found " + offsets.dtype);
        // MLX takes frequencies (it applies their reciprocals); passing them always keeps the angle
        // computation identical for classic and scaled variants
        float[] freqs = new float[spec.dims() / 2];
        for (int i = 0; i < freqs.length; i++) freqs[i] = (float) (1.0 / spec.inverseFrequency(i));
        return op(t -> {
            MemorySegment in = cast(t, x.array(t), DType.F32);
            if (x.dims.length == 2) {
                int[] three = {1, x.dims[0], d};
                MemorySegment flat = in;
                in = t.call("reshape", r -> mlx_reshape(r, flat, Mlx.ints(t.arena, three), 3, s()));
            }
            MemorySegment input = in;
            MemorySegment off = cast(t, offsets.array(t), DType.I32);
            MemorySegment f = t.own(Mlx.checked(mlx_array_new_data(Mlx.structs(), t.arena.allocateFrom(ValueLayout.JAVA_FLOAT, freqs),
                    Mlx.ints(t.arena, freqs.length), 1, Mlx.code(DType.F32)), "rope frequencies"));
            MemorySegment rotated = t.call("rope", r -> mlx_fast_rope_dynamic(r, input, spec.dims(), spec.traditional(),
                    Mlx.optionalFloat(t.arena, null), (float) spec.scale(), off, f, s()));
            if (x.dims.length == 2) {
                MemorySegment back = rotated;
                rotated = t.call("reshape", r -> mlx_reshape(r, back, Mlx.ints(t.arena, x.dims), 2, s()));
            }
            return result(rotated, x.dtype);
        });
    }

    MlxTensor attention(MlxTensor q, MlxTensor k, MlxTensor v, double scale, AttentionMask mask, MlxTensor explicit) {
        if (q.dims.length != 4 || k.dims.length != 4 || v.dims.length != 4) {
            throw new IllegalArgumentException("attention: expected q, k, v of rank 4, found " + q.shape() + ", " + k.shape() + ", " + v.shape());
        }
        int hq = q.dims[1];
        int hkv = k.dims[1];
        if (k.dims[0] != q.dims[0] || v.dims[0] != q.dims[0] || v.dims[1] != hkv || k.dims[2] != v.dims[2]
                || q.dims[3] != k.dims[3] || hkv == 0 || hq % hkv != 0) {
            throw new IllegalArgumentException("attention: q " + q.shape() + ", k " + k.shape() + ", v " + v.shape()
                    + " do not fit [B, Hq, Tq, D], [B, Hkv, Tk, D], [B, Hkv, Tk, Dv] with Hq a multiple of Hkv");
        }
        int tq = q.dims[2];
        int tk = k.dims[2];
        if (explicit != null) {
            ViewOps.broadcastShape("attention mask", explicit.dims, new int[] {q.dims[0], hq, tq, tk});
        }
        if (tk == 0 || tq == 0 || q.dims[0] == 0 || hq == 0) {
            // no keys: every row is fully masked, which the api defines as zeros (MLX would fail)
            int[] dims = {q.dims[0], hq, tq, v.dims[3]};
            return op(t -> backend.wrap(Mlx.call("zeros", r -> mlx_zeros(r, Mlx.ints(t.arena, dims), 4, Mlx.code(q.dtype), s()))));
        }
        return op(t -> {
            MemorySegment qa = cast(t, q.array(t), DType.F32);
            MemorySegment ka = cast(t, k.array(t), DType.F32);
            MemorySegment va = cast(t, v.array(t), DType.F32);
            String mode = "";
            MemorySegment maskArray = Mlx.NO_ARRAY;
            boolean rowsMayBeEmpty = false;
            if (explicit != null) {
                mode = "array";
                maskArray = explicit.dtype == DType.BOOL ? explicit.array(t) : cast(t, explicit.array(t), DType.F32);
                rowsMayBeEmpty = true;
            } else if (mask instanceof AttentionMask.Causal c) {
                if (c.window() == 0 && tq <= tk) {
                    mode = "causal";
                } else {
                    mode = "array";
                    maskArray = causalMask(t, tq, tk, c.window());
                    rowsMayBeEmpty = tq > tk;
                }
            }
            MemorySegment m = maskArray;
            MemorySegment modeString = t.arena.allocateFrom(mode);
            MemorySegment out = t.call("scaled_dot_product_attention", r -> mlx_fast_scaled_dot_product_attention(r, qa, ka, va,
                    (float) scale, modeString, m, Mlx.NO_ARRAY, s()));
            if (rowsMayBeEmpty) out = zeroEmptyRows(t, out, m);
            return result(out, q.dtype);
        });
    }

    /** The boolean causal (optionally windowed) mask [Tq, Tk], built on the host. */
    private MemorySegment causalMask(Temps t, int tq, int tk, int window) {
        MemorySegment bytes = t.arena.allocate(Math.max(1L, (long) tq * tk));
        for (int i = 0; i < tq; i++) {
            int last = tk - tq + i;
            for (int j = 0; j < tk; j++) {
                boolean see = j <= last && (window == 0 || j > last - window);
                bytes.set(ValueLayout.JAVA_BYTE, (long) i * tk + j, (byte) (see ? 1 : 0));
            }
        }
        return t.own(Mlx.checked(mlx_array_new_data(Mlx.structs(), bytes, Mlx.ints(t.arena, tq, tk), 2, Mlx.code(DType.BOOL)), "causal mask"));
    }

    /** Rows whose keys are all masked give zeros (MLX would average or give NaN). */
    private MemorySegment zeroEmptyRows(Temps t, MemorySegment out, MemorySegment mask) {
        MemorySegment allowed = mask;
        if (Mlx.dtype(mask) != DType.BOOL) {
            MemorySegment ninf = scalar(t, Double.NEGATIVE_INFINITY, DType.F32);
            allowed = t.call("greater", r -> mlx_greater(r, mask, ninf, s()));
        }
        MemorySegment a = allowed;
        MemorySegment any = t.call("any", r -> mlx_any_axis(r, a, -1, true, s()));
        MemorySegment zero = scalar(t, 0, DType.F32);
        return t.call("where", r -> mlx_where(r, any, out, zero, s()));
    }
}
