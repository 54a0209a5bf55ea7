package panamax.model.support.blocks;

import panamax.api.kv.KvLayout;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.RopeSpec;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Multi-head self-attention over a layer's KV layout: split a projection into heads (optionally
 * RMS-normalizing each, as Qwen 3 and Gemma 3 do), rotate queries and keys by RoPE at each row's
 * offset, append the keys and values to the layout and attend over everything it holds, merge the
 * heads back. Grouped-query attention needs nothing more: the layout attends {@code heads} queries
 * over {@code kvHeads} keys. Every method returns a new tensor owned by the caller and borrows its
 * arguments. Stateless.
 *
 * {@snippet :
 * try (Tensor q = Attention.heads(ops, w.q(), h, heads, headDim, null, eps);
 *      Tensor k = Attention.heads(ops, w.k(), h, kvHeads, headDim, null, eps);
 *      Tensor v = Attention.heads(ops, w.v(), h, kvHeads, headDim, null, eps);
 *      Tensor o = Attention.attend(backend, cache, q, k, v, rope, 1 / Math.sqrt(headDim))) {
 *     return w.o().apply(ops, o);
 * }
 * }
 */
public final class Attention {
    private Attention() {
    }

    /**
     * {@code h [B, T, hidden]} projected by {@code projection} and split into {@code [B, heads, T, headDim]}.
     *
     * @param norm per-head RMSNorm weight {@code [headDim]}, or null for none
     */
    public static Tensor heads(Ops ops, Linear projection, Tensor h, int heads, int headDim, Tensor norm, double eps) {
        try (Tensor p = projection.apply(ops, h)) {
            return split(ops, p, heads, headDim, norm, eps);
        }
    }

    /**
     * {@code x [B, T, heads·headDim]} as {@code [B, heads, T, headDim]}.
     *
     * @param norm per-head RMSNorm weight {@code [headDim]}, or null for none
     */
    public static Tensor split(Ops ops, Tensor x, int heads, int headDim, Tensor norm, double eps) {
        int b = x.dim(0), t = x.dim(1);
        try (Tensor split = ops.reshape(x, Shape.of(b, t, heads, headDim));
             Tensor normed = norm == null ? null : ops.rmsNorm(split, norm, eps)) {
            return ops.transpose(normed == null ? split : normed, 0, 2, 1, 3);
        }
    }

    /** {@code o [B, heads, T, headDim]} as {@code [B, T, heads·headDim]}. */
    public static Tensor merge(Ops ops, Tensor o) {
        int b = o.dim(0), heads = o.dim(1), t = o.dim(2), headDim = o.dim(3);
        try (Tensor ot = ops.transpose(o, 0, 2, 1, 3)) {
            return ops.reshape(ot, Shape.of(b, t, heads * headDim));
        }
    }

    /**
     * Rotates {@code q [B, heads, T, D]} and {@code k [B, kvHeads, T, D]} by {@code rope} at the
     * layout's current offsets (a left-padded row's first real token at 0), appends {@code k} and
     * {@code v} to {@code cache}, and attends {@code q} over it with {@code scale}.
     *
     * @param rope the layer's rotary embedding, or null for a model without (learned positions)
     * @return the heads merged, {@code [B, T, heads·D]}
     */
    public static Tensor attend(Backend backend, KvLayout cache, Tensor q, Tensor k, Tensor v, RopeSpec rope, double scale) {
        Ops ops = backend.ops();
        if (rope == null) {
            cache.append(k, v);
        } else {
            int[] ropeOffsets = cache.ropeOffsets(); // read before append moves them
            try (Tensor offsets = backend.fromInts(ropeOffsets, Shape.of(q.dim(0)), DType.I32);
                 Tensor qr = ops.rope(q, rope, offsets);
                 Tensor kr = ops.rope(k, rope, offsets)) {
                cache.append(kr, v);
                try (Tensor o = cache.attend(qr, scale)) {
                    return merge(ops, o);
                }
            }
        }
        try (Tensor o = cache.attend(q, scale)) {
            return merge(ops, o);
        }
    }
}
