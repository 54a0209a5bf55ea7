package panamax.kv.layouts;

import java.util.ArrayList;
import java.util.List;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvRole;
import panamax.api.kv.PlaneSpec;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * One codec's planes for a batch of rows: for each {@link PlaneSpec} of the codec's shape a tensor
 * {@code [rows, kvHeads, capacity, width]}, stored without knowing what the codec puts in them.
 * Owns its plane tensors (exclusively, so appends write into them in place with
 * {@link Ops#writeSlice} / {@link Ops#writeAlongAxis}: a decode step costs the new tokens, not the
 * cache) and one reference on the codec. Handles taken by {@link #handles()} (what a capture holds)
 * share the planes' storage, so while any is open the next write first copies the planes once (copy
 * on write) and the capture keeps the old contents; once they are all closed, writes are in place
 * again (a KV-sharing model captures its donors every step). Not thread-safe.
 */
final class PlaneStore implements AutoCloseable {
    private final Backend backend;
    private final Ops ops;
    private final SharedCodec codec;
    private final CodecShape shape;
    private List<Tensor> keys = new ArrayList<>();   // per key plane: [rows, heads, capacity, width]
    private List<Tensor> values = new ArrayList<>(); // per value plane: [rows, heads, capacity, width]
    private int[] openHandles = new int[1]; // views of the current planes given out by handles() and not yet closed

    /** Takes over one reference on {@code codec}. */
    PlaneStore(Backend backend, SharedCodec codec) {
        this.backend = backend;
        this.ops = backend.ops();
        this.codec = codec;
        this.shape = codec.codec().shape();
    }

    SharedCodec codec() {
        return codec;
    }

    CodecShape shape() {
        return shape;
    }

    boolean allocated() {
        return !keys.isEmpty();
    }

    /** Replaces the planes with zeros {@code [rows, heads, capacity, width]}. */
    void allocate(int rows, int heads, int capacity) {
        replace(zeros(rows, heads, capacity));
    }

    /** Takes over {@code planes} (closing the current ones). */
    void replace(Handles planes) {
        closePlanes();
        keys = new ArrayList<>(planes.keys());
        values = new ArrayList<>(planes.values());
        openHandles = new int[1];
    }

    /**
     * Grows the column axis to {@code capacity} with zero columns at the end: one copy of the
     * planes per growth step (the layouts grow in 256-column steps), into new planes nobody shares.
     */
    void grow(int capacity) {
        keys = grown(keys, capacity);
        values = grown(values, capacity);
        openHandles = new int[1];
    }

    private List<Tensor> grown(List<Tensor> planes, int capacity) {
        List<Tensor> out = new ArrayList<>(planes.size());
        for (Tensor p : planes) {
            Tensor bigger = ops.zeros(p.shape().with(2, capacity), p.dtype());
            ops.writeSlice(bigger, p, 0, 0, 0, 0);
            out.add(bigger);
            p.close();
        }
        return out;
    }

    /** Encodes borrowed {@code keys, values [rows, heads, T, headDim]} and writes them at {@code targets}. */
    void write(Tensor newKeys, Tensor newValues, Targets targets) {
        if (openHandles[0] > 0) unshare(); // an open capture still reads these planes
        written(keys, KvRole.KEY, newKeys, targets);
        written(values, KvRole.VALUE, newValues, targets);
    }

    /** Gives this store private copies of planes that a capture also holds (once per capture). */
    private void unshare() {
        keys = copies(keys);
        values = copies(values);
        openHandles = new int[1];
    }

    private List<Tensor> copies(List<Tensor> planes) {
        List<Tensor> out = new ArrayList<>(planes.size());
        for (Tensor p : planes) {
            out.add(ops.copy(p));
            p.close();
        }
        return out;
    }

    private void written(List<Tensor> planes, KvRole role, Tensor x, Targets targets) {
        List<Tensor> encoded = codec.codec().encode(role, x);
        try (Tensor index = targets.start() >= 0 ? null : columnIndex(targets.columns())) {
            for (int i = 0; i < planes.size(); i++) {
                Tensor plane = planes.get(i);
                Tensor update = encoded.get(i);
                if (targets.start() >= 0) {
                    ops.writeSlice(plane, update, 0, 0, targets.start(), 0);
                } else {
                    try (Tensor idx = ops.broadcastTo(index, update.shape())) {
                        ops.writeAlongAxis(plane, idx, update, 2);
                    }
                }
            }
        } finally {
            encoded.forEach(Tensor::close);
        }
    }

    /** Re-arranges rows and columns in place; see {@link #rearranged}. */
    void remap(int[] rowSource, int[][] columnSource, int capacity) {
        Handles moved = rearranged(rowSource, columnSource, capacity);
        closePlanes();
        keys = new ArrayList<>(moved.keys());
        values = new ArrayList<>(moved.values());
        openHandles = new int[1];
    }

    /**
     * New planes (owned by the caller) where row i is old row {@code rowSource[i]} (all rows when
     * null) and its column c old column {@code columnSource[i][c]} (any column when negative; the
     * bookkeeping marks it empty), over a new capacity. One gather per plane, or where every column
     * stays where it is, only the rows' copy.
     */
    Handles rearranged(int[] rowSource, int[][] columnSource, int capacity) {
        return rearranged(rowSource, columnSource, capacity, false);
    }

    /**
     * As {@link #rearranged(int[], int[][], int)} for planes the caller copies at once and then closes ({@link #stack}):
     * where neither rows nor columns move, views of this store's planes instead of copies (a merge's running batch,
     * whose columns stay when the new rows are no wider, is then copied once, by the stack, not twice).
     */
    Handles rearrangedForStacking(int[][] columnSource, int capacity) {
        return rearranged(null, columnSource, capacity, true);
    }

    private Handles rearranged(int[] rowSource, int[][] columnSource, int capacity, boolean viewsWhereUnmoved) {
        int rows = columnSource.length;
        int[] index = new int[rows * capacity];
        boolean unmoved = capacity == capacity();
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < capacity; c++) {
                int src = c < columnSource[r].length ? columnSource[r][c] : -1;
                index[r * capacity + c] = Math.max(src, 0);
                unmoved &= src == c || src < 0; // an empty column may hold anything, its own old values too
            }
        }
        return new Handles(remapped(keys, rowSource, index, rows, capacity, unmoved, viewsWhereUnmoved),
                remapped(values, rowSource, index, rows, capacity, unmoved, viewsWhereUnmoved));
    }

    /** Zero planes {@code [rows, heads, capacity, width]} of this codec's shape, owned by the caller. */
    Handles zeros(int rows, int heads, int capacity) {
        List<Tensor> k = new ArrayList<>();
        List<Tensor> v = new ArrayList<>();
        for (PlaneSpec s : shape.keyPlanes()) k.add(ops.zeros(Shape.of(rows, heads, capacity, s.width()), s.dtype()));
        for (PlaneSpec s : shape.valuePlanes()) v.add(ops.zeros(Shape.of(rows, heads, capacity, s.width()), s.dtype()));
        return new Handles(k, v);
    }

    private List<Tensor> remapped(List<Tensor> planes, int[] rowSource, int[] index, int rows, int capacity, boolean unmoved,
                                  boolean viewsWhereUnmoved) {
        List<Tensor> out = new ArrayList<>(planes.size());
        try (Tensor idx = unmoved ? null : backend.fromInts(index, Shape.of(rows, 1, capacity, 1), DType.I32);
             Tensor rowIdx = rowSource == null ? null : backend.fromInts(rowSource, Shape.of(rowSource.length), DType.I32)) {
            for (Tensor plane : planes) {
                if (unmoved) { // columns stay: the rows taken (a copy), or the planes as they are
                    out.add(rowIdx != null ? ops.take(plane, rowIdx, 0) : viewsWhereUnmoved ? ops.slice(plane, 0, 0, plane.dim(0)) : ops.copy(plane));
                    continue;
                }
                Tensor picked = rowIdx == null ? null : ops.take(plane, rowIdx, 0);
                Tensor from = picked == null ? plane : picked;
                try (Tensor full = ops.broadcastTo(idx, Shape.of(rows, from.dim(1), capacity, from.dim(3)))) {
                    out.add(ops.takeAlongAxis(from, full, 2));
                } finally {
                    if (picked != null) picked.close();
                }
            }
        }
        return out;
    }

    /**
     * Replaces the rows flagged in {@code rows} with {@code source}'s rows re-encoded by this
     * store's codec (a precision change). {@code source} has the same geometry.
     */
    void convertRows(boolean[] rows, PlaneStore source) {
        int[] flags = new int[rows.length];
        for (int r = 0; r < rows.length; r++) flags[r] = rows[r] ? 1 : 0;
        try (Tensor flag = backend.fromInts(flags, Shape.of(rows.length, 1, 1, 1), DType.BOOL)) {
            keys = converted(keys, flag, KvRole.KEY, source);
            values = converted(values, flag, KvRole.VALUE, source);
        }
        openHandles = new int[1];
    }

    private List<Tensor> converted(List<Tensor> planes, Tensor flag, KvRole role, PlaneStore source) {
        List<Tensor> encoded;
        try (Tensor plain = source.decodeAll(role)) {
            encoded = codec.codec().encode(role, plain);
        }
        List<Tensor> out = new ArrayList<>(planes.size());
        try {
            for (int i = 0; i < planes.size(); i++) {
                out.add(ops.where(flag, encoded.get(i), planes.get(i)));
                planes.get(i).close();
            }
        } finally {
            encoded.forEach(Tensor::close);
        }
        return out;
    }

    private Tensor decodeAll(KvRole role) {
        return codec.codec().decode(role, role == KvRole.KEY ? keys : values);
    }

    /** New handles on the current planes (they keep today's contents alive); the caller closes them. */
    Handles handles() {
        List<Tensor> k = new ArrayList<>();
        List<Tensor> v = new ArrayList<>();
        for (Tensor p : keys) k.add(ops.slice(p, 2, 0, p.dim(2)));
        for (Tensor p : values) v.add(ops.slice(p, 2, 0, p.dim(2)));
        int[] open = openHandles;
        open[0]++;
        boolean[] closed = {false};
        return new Handles(k, v, () -> {
            if (!closed[0]) open[0]--;
            closed[0] = true;
        });
    }

    /** The current planes, borrowed; valid until the next change. */
    Handles current() {
        return new Handles(keys, values);
    }

    /** Replaces the planes by the rows of {@code parts} stacked in order (all of equal capacity); closes nothing of the parts. */
    void stack(List<Handles> parts) {
        closePlanes();
        keys = stacked(parts.stream().map(Handles::keys).toList());
        values = stacked(parts.stream().map(Handles::values).toList());
        openHandles = new int[1];
    }

    private List<Tensor> stacked(List<List<Tensor>> parts) {
        List<Tensor> out = new ArrayList<>();
        for (int i = 0; i < parts.getFirst().size(); i++) {
            List<Tensor> slices = new ArrayList<>();
            for (List<Tensor> part : parts) slices.add(part.get(i));
            out.add(ops.concat(slices, 0));
        }
        return out;
    }

    /** Bytes the planes hold. */
    long bytes() {
        long n = 0;
        for (Tensor t : keys) n += t.size() * t.dtype().byteSize();
        for (Tensor t : values) n += t.size() * t.dtype().byteSize();
        return n;
    }

    int capacity() {
        return keys.isEmpty() ? 0 : keys.getFirst().dim(2);
    }

    /** Frees the planes (the store stays usable and is reallocated on the next write). */
    void closePlanes() {
        keys.forEach(Tensor::close);
        values.forEach(Tensor::close);
        keys = new ArrayList<>();
        values = new ArrayList<>();
        openHandles = new int[1];
    }

    /** Closes the planes and releases the codec reference. */
    @Override
    public void close() {
        closePlanes();
        codec.release();
    }

    /**
     * Key and value plane handles in the codec's plane order.
     *
     * @param keys   [rows, heads, capacity, width] per key plane
     * @param values [rows, heads, capacity, width] per value plane
     */
    record Handles(List<Tensor> keys, List<Tensor> values, Runnable onClose) implements AutoCloseable {
        Handles(List<Tensor> keys, List<Tensor> values) {
            this(keys, values, () -> { });
        }

        /** Closes the handles (only for handles the caller owns, see {@link PlaneStore#handles()}). */
        @Override
        public void close() {
            keys.forEach(Tensor::close);
            values.forEach(Tensor::close);
            onClose.run();
        }
    }

    private Tensor columnIndex(int[][] columns) {
        int rows = columns.length;
        int length = rows == 0 ? 0 : columns[0].length;
        int[] data = new int[rows * length];
        for (int r = 0; r < rows; r++) System.arraycopy(columns[r], 0, data, r * length, length);
        return backend.fromInts(data, Shape.of(rows, 1, length, 1), DType.I32);
    }
}
