package panamax.kv.layouts;

import panamax.api.kv.KvCapture;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.Tensor;

/**
 * A {@link KvCapture} of a {@link BatchLayout}: a copy of its position record plus handles on its
 * planes (no copy of tensor data) and references on its codecs, all owned and released by
 * {@link #close()}. Masks and attention are those of the layout at capture time.
 */
final class LayoutCapture implements KvCapture {
    private final Backend backend;
    private final Positions positions;
    private final Retention retention;
    private final SharedCodec targetCodec;
    private final SharedCodec stagingCodec;
    private final PlaneStore.Handles target;
    private final PlaneStore.Handles staging;
    private boolean closed;

    LayoutCapture(BatchLayout layout) {
        this.backend = layout.backend;
        this.positions = layout.positions.copy();
        this.retention = layout.retention;
        boolean t = layout.target != null && layout.target.allocated();
        boolean s = layout.staging != null && layout.staging.allocated();
        this.targetCodec = t ? layout.target.codec().retain() : null;
        this.stagingCodec = s ? layout.staging.codec().retain() : null;
        this.target = t ? layout.target.handles() : null;
        this.staging = s ? layout.staging.handles() : null;
    }

    @Override
    public int rows() {
        return positions.rows();
    }

    @Override
    public int columns() {
        return positions.columns();
    }

    @Override
    public int[] positions(int row) {
        return positions.rowPositions(row);
    }

    @Override
    public AttentionMask mask(int queryLength) {
        checkOpen();
        return Masks.of(backend, positions, retention, queryLength);
    }

    @Override
    public Tensor attend(Tensor queries, double scale) {
        checkOpen();
        AttentionMask mask = mask(queries.dim(2));
        try {
            return Attention.attend(backend.ops(), queries, scale, mask, positions.columns(), part(targetCodec, target),
                    part(stagingCodec, staging), positions.convertedFlags());
        } finally {
            Masks.release(mask);
        }
    }

    @Override
    public Tensor decode(KvRole role) {
        checkOpen();
        if (positions.columns() == 0 || (target == null && staging == null)) {
            throw new IllegalStateException("decode: the captured layout holds no tokens yet");
        }
        return Attention.decode(backend.ops(), role, positions.columns(), part(targetCodec, target),
                part(stagingCodec, staging), positions.convertedFlags());
    }

    private static Attention.Part part(SharedCodec codec, PlaneStore.Handles planes) {
        return planes == null ? null : new Attention.Part(codec.codec(), planes);
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("capture is closed");
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (target != null) {
            target.close();
            targetCodec.release();
        }
        if (staging != null) {
            staging.close();
            stagingCodec.release();
        }
    }
}
