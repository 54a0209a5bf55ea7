package panamax.backend.java;

import java.util.concurrent.ConcurrentHashMap;
import panamax.api.tensor.RopeSpec;

/**
 * The cos and sin of RoPE's angles by position, kept per spec for one backend. Every layer rotates its
 * queries and keys at the same positions, and each angle cost a {@code Math.cos} and a {@code Math.sin} per
 * call (the demo model's decode step: 16 calls, 8 % of a batch-1 step spent on the trigonometry). A table holds
 * positions from 0 up to the largest one asked for so far (at most {@link #MAX_POSITIONS}; later positions are
 * computed per call), filled by the same expression the call would evaluate, so values are the same bits.
 * Tables are replaced, never written once published, so concurrent calls read consistent values.
 */
final class RopeAngles {
    /** Positions a table holds at most: 32 768 × 64 pairs is 16 MiB of cos and sin. */
    static final int MAX_POSITIONS = 32768;
    /** Specs kept at most (models use one to three: Gemma's local and global layers differ); past it the map starts over. */
    private static final int MAX_SPECS = 8;

    private record Table(int positions, float[] cos, float[] sin) {
    }

    private final ConcurrentHashMap<RopeSpec, Table> tables = new ConcurrentHashMap<>();

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
        Table table = tables.get(spec);
        if (table == null || table.positions < end) table = extend(spec, table, (int) end);
        System.arraycopy(table.cos, (int) first * half, cos, at, count * half);
        System.arraycopy(table.sin, (int) first * half, sin, at, count * half);
    }

    private Table extend(RopeSpec spec, Table old, int end) {
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
        if (tables.size() >= MAX_SPECS && !tables.containsKey(spec)) tables.clear();
        tables.put(spec, table);
        return table;
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
