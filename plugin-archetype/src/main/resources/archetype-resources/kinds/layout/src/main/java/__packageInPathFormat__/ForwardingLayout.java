package ${package};

import java.util.ArrayList;
import java.util.List;
import panamax.api.kv.KvCapture;
import panamax.api.kv.KvLayout;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Tensor;

/**
 * One layer's cache, stored by another layout and forwarded to it call for call: the place to change
 * what the layer keeps (e.g. drop tokens before they are appended) or how rows attend (e.g. scale or
 * mask differently in {@code attend}), then declare what changed in {@link ForwardingLayoutProvider}'s
 * capabilities and let the layout kit prove it. Layouts it merges must be of this kind too. Owns the
 * storage; not thread-safe.
 */
final class ForwardingLayout implements KvLayout {
    private final KvLayout storage;

    ForwardingLayout(KvLayout storage) {
        this.storage = storage;
    }

    @Override
    public int rows() {
        return storage.rows();
    }

    @Override
    public int[] offsets() {
        return storage.offsets();
    }

    @Override
    public int[] leftPadding() {
        return storage.leftPadding();
    }

    @Override
    public int[] ropeOffsets() {
        return storage.ropeOffsets();
    }

    @Override
    public void append(Tensor keys, Tensor values) {
        storage.append(keys, values);
    }

    @Override
    public Tensor attend(Tensor queries, double scale) {
        return storage.attend(queries, scale);
    }

    @Override
    public AttentionMask mask(int queryLength) {
        return storage.mask(queryLength);
    }

    @Override
    public int trim(int n) {
        return storage.trim(n);
    }

    @Override
    public boolean isTrimmable() {
        return storage.isTrimmable();
    }

    @Override
    public void preparePrefill(int[] lengths, int[] leftPadding, int[] rightPadding) {
        storage.preparePrefill(lengths, leftPadding, rightPadding);
    }

    @Override
    public void finalizePrefill() {
        storage.finalizePrefill();
    }

    @Override
    public void filterRows(int[] keep) {
        storage.filterRows(keep);
    }

    @Override
    public KvLayout merge(List<KvLayout> others) {
        List<KvLayout> stored = new ArrayList<>(others.size());
        for (KvLayout other : others) {
            if (!(other instanceof ForwardingLayout forwarding)) {
                throw new IllegalArgumentException(ForwardingLayoutProvider.ID + " merge: expected layouts of "
                        + ForwardingLayoutProvider.ID + ", found " + other.getClass().getName());
            }
            stored.add(forwarding.storage);
        }
        return new ForwardingLayout(storage.merge(stored));
    }

    @Override
    public KvLayout extractRow(int r) {
        return new ForwardingLayout(storage.extractRow(r));
    }

    @Override
    public void beginRound() {
        storage.beginRound();
    }

    @Override
    public void commitRound() {
        storage.commitRound();
    }

    @Override
    public void rollback(int[] keep) {
        storage.rollback(keep);
    }

    @Override
    public int exactRoundTokens(int row) {
        return storage.exactRoundTokens(row);
    }

    @Override
    public void alignRows(int[] leftPadding) {
        storage.alignRows(leftPadding);
    }

    @Override
    public KvCapture capture() {
        return storage.capture();
    }

    @Override
    public long bytesPerToken() {
        return storage.bytesPerToken();
    }

    @Override
    public long projectedBytes(long tokens) {
        return storage.projectedBytes(tokens);
    }

    @Override
    public void close() {
        storage.close();
    }
}
