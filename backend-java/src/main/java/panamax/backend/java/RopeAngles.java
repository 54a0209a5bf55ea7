package panamax.backend.java;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import panamax.api.tensor.RopeSpec;

/**
 * The cos and sin of RoPE's angles by position, kept per spec for one backend. Every layer rotates its
 * queries and keys at the same positions, and each angle cost a {@code Math.cos} and a {@code Math.sin} per
 * call (the demo model's decode step: 16 calls, 8 % of a batch-1 step spent on the trigonometry). A table holds
 * positions from 0 up to the largest one asked for so far (at most {@link #MAX_POSITIONS}; later positions are
 * computed per call), filled by the same expression the call would evaluate, so values are the same bits. Tables are
 * kept per spec value (the angles do not depend on the rotation's style).
 * Tables are replaced, never written once published, so concurrent calls read consistent values.
 */
final class RopeAngles {
    /** Positions a table holds at most: 32 768 × 64 pairs is 16 MiB of cos and sin. */
    static final int MAX_POSITIONS = 32768;
    /** Specs kept at most (models use one to three: Gemma's local and global layers differ); past it the map starts over. */
    private static final int MAX_SPECS = 8;

    private record Table(int positions, float[] cos, float[] sin) {
    }

    /**
     * A spec by value: {@link RopeSpec}'s own equality compares its frequency array by identity, and a plugin that
     * builds an equal spec per call would otherwise start a table every call.
     */
    private record Key(int dims, double base, double scale, float[] frequencies) {
        static Key of(RopeSpec spec) {
            return new Key(spec.dims(), spec.base(), spec.scale(), spec.frequencies().orElse(null));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && dims == k.dims && Double.compare(base, k.base) == 0 && Double.compare(scale, k.scale) == 0
                    && Arrays.equals(frequencies, k.frequencies);
        }

        @Override
        public int hashCode() {
            return Objects.hash(dims, base, scale) * 31 + Arrays.hashCode(frequencies);
        }
    }

    private final ConcurrentHashMap<Key, Table> tables = new ConcurrentHashMap<>();

    /**
     * Writes {@code cos[at + j·half + i]} and {@code sin[…]} for positions {@code first + j}, {@code j < count}, pairs
     * {@code i < half = spec.dims() / 2}.
     */
    void fill(RopeSpec spec, long first, int count, float[] cos, float[] sin, int at) {
        int half = spec.dims() / 2;
        long end = first + count;
        if (first < 0 || end > MAX_POSITIONS || half == 0) {
            compute(spec, first, count, cos, sin, at);
            return;
        }
        Key key = Key.of(spec);
        Table table = tables.get(key);
        if (table == null || table.positions < end) table = extend(spec, key, table, (int) end);
        System.arraycopy(table.cos, (int) first * half, cos, at, count * half);
        System.arraycopy(table.sin, (int) first * half, sin, at, count * half);
    }

    private Table extend(RopeSpec spec, Key key, Table old, int end) {
        int half = spec.dims() / 2;
        int have = old == null ? 0 : old.positions;
        int positions = (int) Math.min(MAX_POSITIONS, Math.max(end, Math.max(256L, 2L * have)));
        float[] cos = new float[positions * half];
        float[] sin = new float[positions * half];
        if (old != null) {
            System.arraycopy(old.cos, 0, cos, 0, have * half);
            System.arraycopy(old.sin, 0, sin, 0, have * half);
        }
        compute(spec, have, positions - have, cos, sin, have * half);
        Table table = new Table(positions, cos, sin);
        if (tables.size() >= MAX_SPECS && !tables.containsKey(key)) tables.clear();
        tables.put(key, table);
        return table;
    }

    /** How many specs have a table now. */
    int tables() {
        return tables.size();
    }

    /** The angles of positions {@code first ..} as a rope call evaluates them: position × scale × inverse frequency. */
    static void compute(RopeSpec spec, long first, int count, float[] cos, float[] sin, int at) {
        int half = spec.dims() / 2;
        double[] inv = new double[half];
        for (int i = 0; i < half; i++) inv[i] = spec.inverseFrequency(i);
        for (int j = 0; j < count; j++) {
            double pos = (first + j) * spec.scale();
            for (int i = 0; i < half; i++) {
                double angle = pos * inv[i];
                cos[at + j * half + i] = (float) Math.cos(angle);
                sin[at + j * half + i] = (float) Math.sin(angle);
            }
        }
    }
}
