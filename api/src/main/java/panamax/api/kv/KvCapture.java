package panamax.api.kv;

import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Tensor;

/**
 * A read-only view of one layer's KV as it stood when {@link KvLayout#capture()} was called, so a
 * later layer (a KV-sharing "donee") can attend over the donor's keys and values in the donor's own
 * columns without copying them. The view holds handles on the donor's planes, so it stays valid
 * even if the donor is appended to afterwards; close it to release them. Tensors it returns are
 * owned by the caller. Not thread-safe.
 *
 * @since 0.1
 */
public interface KvCapture extends AutoCloseable {
    /** Rows of the captured batch. */
    int rows();

    /** Global columns of the captured storage (the key axis {@link #attend} and {@link #mask} use). */
    int columns();

    /** Per column of {@code row}, the logical (RoPE) position of the token stored there, or -1 for padding or an empty slot. */
    int[] positions(int row);

    /** The donor's mask for queries that are the donor's last {@code queryLength} appended tokens; explicit tensors are owned by the caller. */
    AttentionMask mask(int queryLength);

    /** Attention of {@code queries [rows, Hq, T, headDim]} over the captured KV with {@link #mask}{@code (T)}. */
    Tensor attend(Tensor queries, double scale);

    /**
     * The captured keys or values decoded to {@code [rows, kvHeads, columns, headDim]}; padding
     * columns hold arbitrary values.
     *
     * @throws IllegalStateException when nothing had been appended when the capture was taken
     */
    Tensor decode(KvRole role);

    /** Releases the handles on the donor's planes. Idempotent. */
    @Override
    void close();
}
