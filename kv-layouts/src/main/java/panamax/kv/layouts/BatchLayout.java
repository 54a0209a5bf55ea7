package panamax.kv.layouts;

import java.util.Arrays;
import java.util.List;
import panamax.api.kv.KvCapture;
import panamax.api.kv.KvLayout;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.Tensor;

/**
 * The one implementation behind the {@code full}, {@code rotating} and {@code delayed} plugins: a
 * batch of rows whose tokens are recorded in a shared {@link Positions} and stored as codec planes
 * in up to two {@link PlaneStore}s of identical geometry ({@code target} for rows in the layout's
 * codec, {@code staging} for rows still in identity). The {@link Retention} decides eviction; the
 * delay decides when a row changes codec. Every row operation is a {@link Remap} applied to the
 * record and the planes alike. Owns its stores and codec references. Not thread-safe.
 */
final class BatchLayout implements KvLayout {
    static final int STEP = 256;

    final Backend backend;
    final int layer;
    final Retention retention;
    final int start;               // rows convert to the target codec when their offset reaches it; 0: from the first token
    final SharedCodec codec;       // the layout's own reference on the target codec
    final SharedCodec identity;    // the layout's own reference on the identity codec, or null
    Positions positions;
    PlaneStore target;             // planes in the target codec, null while no row is converted
    PlaneStore staging;            // identity planes, null once every row is converted
    int heads;                     // kv heads, 0 until known
    int capacity;                  // columns allocated in every store, 0 before the first write
    private Positions roundStart;  // the record at beginRound while a speculative round is open, else null
    private boolean closed;

    /** Takes over one reference on each codec; rows start converted when {@code start == 0}. */
    BatchLayout(Backend backend, int layer, Retention retention, int start, SharedCodec codec, SharedCodec identity,
                int heads, Positions positions) {
        if (start > 0 && identity == null) {
            throw new IllegalArgumentException("a delayed layout needs an identity codec in its LayoutContext");
        }
        this.backend = backend;
        this.layer = layer;
        this.retention = retention;
        this.start = start;
        this.codec = codec;
        this.identity = identity;
        this.heads = heads;
        this.positions = positions;
        refreshStores();
    }

    @Override
    public int rows() {
        return positions.rows();
    }

    @Override
    public int[] offsets() {
        return positions.offsets();
    }

    @Override
    public int[] leftPadding() {
        int[] out = new int[rows()];
        for (int r = 0; r < out.length; r++) out[r] = positions.leftPadding(r);
        return out;
    }

    @Override
    public int[] ropeOffsets() {
        return positions.ropeOffsets();
    }

    @Override
    public void append(Tensor keys, Tensor values) {
        checkOpen();
        if (keys.rank() != 4 || !keys.shape().with(3, values.dim(3)).equals(values.shape()) || keys.dim(0) != rows()) {
            throw new IllegalArgumentException("append: expected keys and values [" + rows() + ", heads, T, dim], found "
                    + keys.shape() + " and " + values.shape());
        }
        if (heads != 0 && keys.dim(1) != heads) {
            throw new IllegalArgumentException("append: expected " + heads + " kv heads, found " + keys.dim(1));
        }
        heads = keys.dim(1);
        int length = keys.dim(2);
        if (length == 0) return;
        int[][] chunk = positions.chunkPositions(length);
        Targets targets = plan(length, chunk);
        ensureCapacity(targets.maxColumn() + 1);
        if (target != null) target.write(keys, values, targets);
        if (staging != null) staging.write(keys, values, targets);
        positions.record(targets.columns(), chunk);
        if (roundStart == null) convertReadyRows();
    }

    /**
     * Where a chunk goes: after each row's end; for a bounded layout a single token goes to its ring
     * column ({@link RowMoves#slot}), several tokens (or a prefill's) after the rows put in time order.
     */
    private Targets plan(int length, int[][] chunk) {
        if (!retention.bounded()) {
            int[][] cols = new int[rows()][length];
            for (int r = 0; r < cols.length; r++) for (int t = 0; t < length; t++) cols[r][t] = positions.end(r) + t;
            return Targets.of(cols);
        }
        if (roundStart != null) {
            // nothing is evicted inside a speculative round, so a rollback never needs a lost token back
            return Targets.contiguous(rows(), positions.columns(), length);
        }
        if (length > 1 || positions.planActive()) {
            // time order, keeping each row's sinks and window (so every query of the chunk sees its own)
            Remap compact = RowMoves.timeOrdered(new RowMoves.Order(RowMoves.ownSources(positions), null,
                    retention.keep(), retention.recentKept(), null, 0));
            if (!positions.unchangedBy(compact)) apply(compact);
            return Targets.contiguous(rows(), positions.columns(), length);
        }
        // a single token: every row in ring order (a no-op unless a multi-token chunk or a row move came
        // before), then the token overwrites the one a window older, if any, in its ring column
        if (!positions.inRing(retention)) apply(RowMoves.ring(positions, retention, null, 0, true));
        int[][] cols = new int[rows()][1];
        for (int r = 0; r < cols.length; r++) {
            // padding never evicts: one column past the ring until the next compaction
            cols[r][0] = chunk[r][0] >= 0 ? RowMoves.slot(retention, chunk[r][0]) : positions.columns();
        }
        return Targets.of(cols);
    }

    /** Columns to allocate for {@code needed}: 256-token steps, but a bounded layout stops at its window. */
    int capacityFor(int needed) {
        if (needed <= 0) return 0;
        int stepped = (needed + STEP - 1) / STEP * STEP;
        return retention.bounded() ? Math.max(needed, Math.min(stepped, retention.window())) : stepped;
    }

    private void ensureCapacity(int needed) {
        if (needed <= capacity) return;
        int grown = capacityFor(needed);
        for (PlaneStore s : stores()) {
            if (s.allocated()) s.grow(grown);
            else s.allocate(rows(), heads, grown);
        }
        capacity = grown;
    }

    /** Applies a move to the record and to every store's planes. */
    void apply(Remap m) {
        int newCapacity = m.rows() == 0 || heads == 0 ? 0 : capacityFor(m.width());
        for (PlaneStore s : stores()) {
            if (newCapacity == 0) s.closePlanes();
            else if (!s.allocated()) s.allocate(m.rows(), heads, newCapacity);
            else s.remap(m.rowSource(), m.columnSource(), newCapacity);
        }
        positions.apply(m);
        capacity = newCapacity;
        refreshStores();
    }

    /** Converts rows whose offset reached the start: their whole history is re-encoded in the target codec. */
    private void convertReadyRows() {
        if (staging == null) return;
        boolean[] ready = new boolean[rows()];
        boolean any = false;
        for (int r = 0; r < ready.length; r++) {
            ready[r] = !positions.converted(r) && positions.offset(r) >= start;
            any |= ready[r];
        }
        if (!any) return;
        if (target == null) target = newStore(codec);
        if (staging.allocated()) {
            if (!target.allocated()) target.allocate(rows(), heads, capacity);
            target.convertRows(ready, staging);
        }
        for (int r = 0; r < ready.length; r++) if (ready[r]) positions.markConverted(r);
        refreshStores();
    }

    /** Opens a store for rows that need one and closes a store no row lives in. */
    private void refreshStores() {
        int converted = positions.countConverted();
        if (converted > 0 && target == null) target = newStore(codec);
        if (converted < rows() && staging == null) staging = newStore(identity);
        if (converted == 0 && target != null && rows() > 0) {
            target.close();
            target = null;
        }
        if (converted == rows() && staging != null) {
            staging.close();
            staging = null;
        }
    }

    private PlaneStore newStore(SharedCodec ref) {
        PlaneStore s = new PlaneStore(backend, ref.retain());
        if (capacity > 0 && heads > 0 && rows() > 0) s.allocate(rows(), heads, capacity);
        return s;
    }

    List<PlaneStore> stores() {
        if (target == null) return staging == null ? List.of() : List.of(staging);
        return staging == null ? List.of(target) : List.of(target, staging);
    }

    @Override
    public Tensor attend(Tensor queries, double scale) {
        checkOpen();
        if (queries.dim(0) != rows()) {
            throw new IllegalArgumentException("attend: expected " + rows() + " query rows, found " + queries.shape());
        }
        AttentionMask mask = mask(queries.dim(2));
        try {
            return Attention.attend(backend.ops(), queries, scale, mask, positions.columns(), part(target, null),
                    part(staging, null), positions.convertedFlags());
        } finally {
            Masks.release(mask);
        }
    }

    Attention.Part part(PlaneStore store, PlaneStore.Handles handles) {
        if (store == null || !store.allocated()) return null;
        return new Attention.Part(store.codec().codec(), handles == null ? store.current() : handles);
    }

    @Override
    public AttentionMask mask(int queryLength) {
        checkOpen();
        return Masks.of(backend, positions, retention, queryLength);
    }

    @Override
    public int trim(int n) {
        checkOpen();
        requireNoRound("trim");
        if (n <= 0 || !isTrimmable() || rows() == 0) return 0;
        int count = Math.min(n, Arrays.stream(positions.offsets()).min().orElse(0));
        int[] limit = positions.offsets();
        for (int r = 0; r < limit.length; r++) limit[r] -= count;
        positions.truncate(limit);
        return count;
    }

    @Override
    public boolean isTrimmable() {
        return !retention.bounded() || !positions.anyWrapped();
    }

    @Override
    public void preparePrefill(int[] lengths, int[] leftPadding, int[] rightPadding) {
        checkOpen();
        requireNoRound("preparePrefill");
        checkRows("lengths", lengths);
        checkRows("leftPadding", leftPadding);
        checkRows("rightPadding", rightPadding);
        positions.plan(lengths, leftPadding);
    }

    @Override
    public void finalizePrefill() {
        checkOpen();
        positions.clearPlan();
        Remap settled = RowMoves.settled(positions, retention, 0);
        if (!positions.unchangedBy(settled)) apply(settled);
    }

    @Override
    public void filterRows(int[] keep) {
        checkOpen();
        requireNoRound("filterRows");
        for (int r : keep) {
            if (r < 0 || r >= rows()) throw new IllegalArgumentException("filterRows: row " + r + " outside [0, " + rows() + ")");
        }
        apply(RowMoves.filter(positions, keep));
    }

    @Override
    public KvLayout merge(List<KvLayout> others) {
        checkOpen();
        return Batches.merge(this, others);
    }

    @Override
    public KvLayout extractRow(int r) {
        checkOpen();
        if (r < 0 || r >= rows()) throw new IllegalArgumentException("extractRow: row " + r + " outside [0, " + rows() + ")");
        return Batches.extract(this, r);
    }

    @Override
    public void alignRows(int[] leftPadding) {
        checkOpen();
        requireNoRound("alignRows");
        checkRows("leftPadding", leftPadding);
        for (int p : leftPadding) if (p < 0) throw new IllegalArgumentException("alignRows: padding must be >= 0, found " + p);
        apply(RowMoves.timeOrdered(new RowMoves.Order(RowMoves.ownSources(positions), null, 0,
                Integer.MAX_VALUE, leftPadding, 0)));
    }

    /**
     * Begins a round. The snapshot is the position record only: while a round is open a bounded
     * layout evicts nothing (new tokens take fresh columns past the ring), so rolling back after the
     * ring has wrapped only forgets columns, and no plane is copied or kept alive.
     */
    @Override
    public void beginRound() {
        checkOpen();
        requireNoRound("beginRound");
        roundStart = positions.copy();
    }

    @Override
    public void commitRound() {
        checkOpen();
        if (roundStart == null) throw new IllegalStateException("commitRound without beginRound");
        roundStart = null;
        convertReadyRows();
    }

    @Override
    public void rollback(int[] keep) {
        checkOpen();
        if (roundStart == null) throw new IllegalStateException("rollback without beginRound");
        checkRows("keep", keep);
        int[] limit = new int[rows()];
        for (int r = 0; r < limit.length; r++) {
            int appended = positions.offset(r) - roundStart.offset(r);
            if (keep[r] < 0 || keep[r] > appended) {
                throw new IllegalArgumentException("rollback: row " + r + " appended " + appended
                        + " tokens in the round, cannot keep " + keep[r]);
            }
            limit[r] = roundStart.offset(r) + keep[r];
        }
        positions.truncate(limit);
        roundStart = null;
        convertReadyRows();
    }

    /**
     * Unlimited once the row is in its target codec; before, the tokens that still attend over
     * identity history when fed one at a time (a token whose append reaches {@code start} converts
     * the row first), since a round defers conversion to its end.
     */
    @Override
    public int exactRoundTokens(int row) {
        checkOpen();
        if (row < 0 || row >= rows()) throw new IllegalArgumentException("exactRoundTokens: row " + row + " outside [0, " + rows() + ")");
        if (positions.converted(row)) return Integer.MAX_VALUE;
        return Math.max(0, start - 1 - positions.offset(row));
    }

    @Override
    public long bytesPerToken() {
        long perHead = 0;
        for (PlaneStore s : stores()) perHead += s.shape().bytesPerTokenPerHead();
        return (long) rows() * Math.max(heads, 1) * perHead;
    }

    @Override
    public long projectedBytes(long tokens) {
        long stored = retention.bounded() ? Math.min(tokens, retention.window()) : tokens;
        long columns = stored <= 0 ? 0 : capacityFor((int) Math.min(stored, Integer.MAX_VALUE - STEP));
        var shape = tokens >= start || identity == null ? codec.codec().shape() : identity.codec().shape();
        return (long) rows() * Math.max(heads, 1) * shape.bytesPerTokenPerHead() * columns;
    }

    /** Bytes the planes hold now, snapshot excluded. */
    long storedBytes() {
        long n = 0;
        for (PlaneStore s : stores()) n += s.bytes();
        return n;
    }

    @Override
    public KvCapture capture() {
        checkOpen();
        return new LayoutCapture(this);
    }

    boolean inRound() {
        return roundStart != null;
    }

    private void checkRows(String name, int[] values) {
        if (values.length != rows()) {
            throw new IllegalArgumentException(name + ": expected " + rows() + " values (one per row), found " + values.length);
        }
    }

    private void requireNoRound(String what) {
        if (roundStart != null) throw new IllegalStateException(what + " inside a speculative round; commit or roll back first");
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("layout of layer " + layer + " is closed");
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        roundStart = null;
        for (PlaneStore s : stores()) s.close();
        target = null;
        staging = null;
        codec.release();
        if (identity != null) identity.release();
    }
}
