package panamax.kv.layouts;

import java.util.ArrayList;
import java.util.List;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Attention and decoding over a layout's planes, shared by layouts and their captures. Rows may
 * live in two codecs at once (a delayed layout mid-conversion): then both are computed and each
 * row takes the result of the codec it lives in. Always through {@link KvCodec#attend}, so codecs
 * that attend on their planes or keep values rotated work unchanged.
 */
final class Attention {
    private Attention() {
    }

    /**
     * One codec's planes, borrowed.
     *
     * @param codec  the codec that wrote them
     * @param planes [rows, heads, capacity, width] per plane
     */
    record Part(KvCodec codec, PlaneStore.Handles planes) {
    }

    /**
     * Attention of borrowed queries over the first {@code columns} columns; {@code target} holds
     * rows flagged in {@code converted}, {@code staging} the others; either may be null.
     */
    static Tensor attend(Ops ops, Tensor queries, double scale, AttentionMask mask, int columns, Part target,
                         Part staging, boolean[] converted) {
        if (columns == 0 || (target == null && staging == null)) return ops.zeros(queries.shape(), queries.dtype());
        if (staging == null) return attendOne(ops, queries, scale, mask, columns, target);
        if (target == null) return attendOne(ops, queries, scale, mask, columns, staging);
        try (Tensor a = attendOne(ops, queries, scale, mask, columns, target);
             Tensor b = attendOne(ops, queries, scale, mask, columns, staging);
             Tensor flag = rowFlags(queries, converted)) {
            return ops.where(flag, a, b);
        }
    }

    /** Decodes the first {@code columns} columns to {@code [rows, heads, columns, headDim]}, choosing per row as {@link #attend}. */
    static Tensor decode(Ops ops, KvRole role, int columns, Part target, Part staging, boolean[] converted) {
        if (staging == null) return decodeOne(ops, role, columns, target);
        if (target == null) return decodeOne(ops, role, columns, staging);
        try (Tensor a = decodeOne(ops, role, columns, target);
             Tensor b = decodeOne(ops, role, columns, staging);
             Tensor flag = rowFlags(a, converted)) {
            return ops.where(flag, a, b);
        }
    }

    private static Tensor attendOne(Ops ops, Tensor queries, double scale, AttentionMask mask, int columns, Part part) {
        List<Tensor> k = views(ops, part.planes().keys(), columns);
        List<Tensor> v = views(ops, part.planes().values(), columns);
        try {
            return part.codec().attend(queries, k, v, scale, mask);
        } finally {
            k.forEach(Tensor::close);
            v.forEach(Tensor::close);
        }
    }

    private static Tensor decodeOne(Ops ops, KvRole role, int columns, Part part) {
        List<Tensor> planes = views(ops, role == KvRole.KEY ? part.planes().keys() : part.planes().values(), columns);
        try {
            return part.codec().decode(role, planes);
        } finally {
            planes.forEach(Tensor::close);
        }
    }

    private static List<Tensor> views(Ops ops, List<Tensor> planes, int columns) {
        List<Tensor> out = new ArrayList<>(planes.size());
        for (Tensor p : planes) out.add(ops.slice(p, 2, 0, columns));
        return out;
    }

    private static Tensor rowFlags(Tensor like, boolean[] converted) {
        int[] flags = new int[converted.length];
        for (int r = 0; r < flags.length; r++) flags[r] = converted[r] ? 1 : 0;
        return like.backend().fromInts(flags, Shape.of(flags.length, 1, 1, 1), DType.BOOL);
    }
}
