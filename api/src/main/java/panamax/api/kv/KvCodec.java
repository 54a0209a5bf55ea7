package panamax.api.kv;

import java.util.List;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Tensor;

/**
 * Encodes keys and values of one layer into planes and attends over them. Instances are created
 * by {@link KvCodecProvider#create} and closed by their owner (the layout). Not thread-safe.
 */
public interface KvCodec extends AutoCloseable {
    /** The planes this instance produces for its head dimension. */
    CodecShape shape();

    /**
     * Encodes borrowed {@code x [rows, heads, tokens, headDim]} into new planes, one per
     * {@link CodecShape} entry for {@code role}, each {@code [rows, heads, tokens, width]}; owned by the caller.
     */
    List<Tensor> encode(KvRole role, Tensor x);

    /** Decodes borrowed planes back to a new {@code [rows, heads, tokens, headDim]} tensor in the activation dtype. */
    Tensor decode(KvRole role, List<Tensor> planes);

    /**
     * Attention of borrowed {@code queries [B, Hq, Tq, headDim]} over borrowed key and value planes
     * ({@code [B, Hkv, Tk, width]} each), returning a new {@code [B, Hq, Tq, headDim]} in original
     * (un-rotated) coordinates. The default decodes and runs the backend's attention; codecs that
     * declare {@link KvCodecCapabilities#attentionOnPlanes()} override it.
     */
    default Tensor attend(Tensor queries, List<Tensor> keyPlanes, List<Tensor> valuePlanes, double scale,
                          AttentionMask mask) {
        var ops = queries.backend().ops();
        try (Tensor k = decode(KvRole.KEY, keyPlanes); Tensor v = decode(KvRole.VALUE, valuePlanes)) {
            return ops.scaledDotProductAttention(queries, k, v, scale, mask);
        }
    }

    /** Releases rotations and other tensors the codec holds. */
    @Override
    void close();
}
