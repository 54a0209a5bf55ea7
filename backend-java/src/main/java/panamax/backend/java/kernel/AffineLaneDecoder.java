package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Decodes a block of affine rows (MLX's LSB-first words of 2-, 4- or 8-bit codes, {@code code·s + b}
 * per group) to f32 in <em>lane order</em>: a vector of words is loaded once and each code position
 * within a word is one shift, mask, convert and FMA for all its lanes, so element
 * {@code e = (v·perWord + i)·F + l} holds column {@code (v·F + l)·perWord + i}. Attention takes its
 * dot products in that order ({@link LaneBlockProducts}): queries are put in lane order once per call
 * ({@link #toLanes}) and value sums back in column order once per row ({@link #fromLanes}), so nothing
 * is shuffled per key. Works on any lane count, unlike the sixteen-lane {@link CodeColumns} and
 * {@link CodeRows}.
 *
 * <p>One instance holds one thread's scratch for rows of one shape; not thread-safe.
 */
public final class AffineLaneDecoder {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final int F = S.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final int bits;
    private final int cols;
    private final int groupSize;
    private final int groups;
    private final int perWord;
    private final int vectors;
    /** natural[e]: the column of lane-order element e. */
    private final int[] natural;
    /** Whether every word vector's codes lie in one group (one broadcast scale and bias per vector). */
    private final boolean uniform;
    /** Per word vector v, lane l: the group of its codes ({@code [v·F + l]}), for gathering lane scales. */
    private final int[] laneGroups;
    private final float[] scales;
    private final float[] biases;

    /** Scratch for blocks of up to {@code maxRows} rows of {@code cols} codes of {@code bits}, groups of {@code groupSize}. */
    public AffineLaneDecoder(int bits, int cols, int groupSize, int maxRows) {
        if (!supports(bits, cols, groupSize)) {
            throw new IllegalArgumentException("AffineLaneDecoder: unsupported rows of " + cols + " " + bits + "-bit codes in groups of " + groupSize);
        }
        this.bits = bits;
        this.cols = cols;
        this.groupSize = groupSize;
        this.groups = cols / groupSize;
        this.perWord = 32 / bits;
        this.vectors = cols * bits / 32 / F;
        this.natural = new int[cols];
        for (int v = 0; v < vectors; v++) {
            for (int i = 0; i < perWord; i++) {
                for (int l = 0; l < F; l++) natural[(v * perWord + i) * F + l] = (v * F + l) * perWord + i;
            }
        }
        this.uniform = groupSize % (F * perWord) == 0;
        this.laneGroups = new int[vectors * F];
        for (int w = 0; w < vectors * F; w++) laneGroups[w] = w * perWord / groupSize;
        this.scales = new float[maxRows * groups + F];
        this.biases = new float[maxRows * groups + F];
    }

    /**
     * True for 2-, 4- and 8-bit codes in rows of whole word vectors (the row's words a multiple of the
     * lane count) whose groups hold whole words.
     */
    public static boolean supports(int bits, int cols, int groupSize) {
        if (bits != 2 && bits != 4 && bits != 8) return false;
        if (cols <= 0 || groupSize <= 0 || cols % groupSize != 0 || groupSize % (32 / bits) != 0) return false;
        return IS.length() == F && (long) cols * bits % (32L * F) == 0;
    }

    /** Floats per decoded row (the row's columns). */
    public int cols() {
        return cols;
    }

    /** {@code dst[dstOff + e] = x[xOff + natural(e)]}: a row of {@code cols} in lane order. */
    public void toLanes(float[] x, int xOff, float[] dst, int dstOff) {
        for (int e = 0; e < cols; e++) dst[dstOff + e] = x[xOff + natural[e]];
    }

    /** {@code dst[natural(e)] = lanes[off + e]}: a lane-order row back in column order. */
    public void fromLanes(float[] lanes, int off, float[] dst) {
        for (int e = 0; e < cols; e++) dst[natural[e]] = lanes[off + e];
    }

    /**
     * Rows {@code [t0, t0 + n)} (row t's words at byte {@code base + t·rowBytes}, its group parameters
     * from {@code params}) into {@code out[(t − t0)·cols ..]} in lane order.
     */
    public void decode(MemorySegment packed, long base, long rowBytes, RowScales params, int t0, int n, float[] out) {
        params.loadRows(t0, n, groups, scales, biases, 0);
        // separate loops: a vector merged from two branches is boxed
        if (uniform) decodeUniform(packed, base, rowBytes, t0, n, out);
        else decodeGathered(packed, base, rowBytes, t0, n, out);
    }

    /** Every word vector in one group: its scale and bias broadcast. */
    private void decodeUniform(MemorySegment packed, long base, long rowBytes, int t0, int n, float[] out) {
        if (bits == 4) {
            decodeFourBit(packed, base, rowBytes, t0, n, out);
            return;
        }
        int mask = (1 << bits) - 1;
        int vectorsPerGroup = groupSize / (F * perWord);
        for (int t = 0; t < n; t++) {
            long row = base + (t0 + t) * rowBytes;
            int o = t * cols;
            int p = t * groups;
            for (int v = 0; v < vectors; v++) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * F * v, LE);
                FloatVector s = FloatVector.broadcast(S, scales[p + v / vectorsPerGroup]);
                FloatVector b = FloatVector.broadcast(S, biases[p + v / vectorsPerGroup]);
                int at = o + v * perWord * F;
                for (int i = 0; i < perWord; i++) {
                    FloatVector c = (FloatVector) w.lanewise(VectorOperators.LSHR, i * bits).and(mask).convert(VectorOperators.I2F, 0);
                    c.fma(s, b).intoArray(out, at + i * F);
                }
            }
        }
    }

    /**
     * 4-bit codes, the eight positions of a word vector straight-line in the loop (constant shifts; no
     * call: a vector passed to a method C2 does not inline is boxed).
     */
    private void decodeFourBit(MemorySegment packed, long base, long rowBytes, int t0, int n, float[] out) {
        int vectorsPerGroup = groupSize / (F * perWord);
        for (int t = 0; t < n; t++) {
            long row = base + (t0 + t) * rowBytes;
            int p = t * groups;
            for (int v = 0; v < vectors; v++) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * F * v, LE);
                FloatVector s = FloatVector.broadcast(S, scales[p + v / vectorsPerGroup]);
                FloatVector b = FloatVector.broadcast(S, biases[p + v / vectorsPerGroup]);
                int at = t * cols + v * 8 * F;
                ((FloatVector) w.and(0xf).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(out, at);
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 4).and(0xf).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(out, at + F);
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 8).and(0xf).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(out, at + 2 * F);
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 12).and(0xf).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(out, at + 3 * F);
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 16).and(0xf).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(out, at + 4 * F);
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 20).and(0xf).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(out, at + 5 * F);
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 24).and(0xf).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(out, at + 6 * F);
                ((FloatVector) w.lanewise(VectorOperators.LSHR, 28).convert(VectorOperators.I2F, 0)).fma(s, b).intoArray(out, at + 7 * F);
            }
        }
    }

    /** Groups narrower than a word vector: each lane's scale and bias gathered from its group. */
    private void decodeGathered(MemorySegment packed, long base, long rowBytes, int t0, int n, float[] out) {
        int mask = (1 << bits) - 1;
        for (int t = 0; t < n; t++) {
            long row = base + (t0 + t) * rowBytes;
            int o = t * cols;
            int p = t * groups;
            for (int v = 0; v < vectors; v++) {
                IntVector w = IntVector.fromMemorySegment(IS, packed, row + 4L * F * v, LE);
                FloatVector s = FloatVector.fromArray(S, scales, p, laneGroups, v * F);
                FloatVector b = FloatVector.fromArray(S, biases, p, laneGroups, v * F);
                int at = o + v * perWord * F;
                for (int i = 0; i < perWord; i++) {
                    FloatVector c = (FloatVector) w.lanewise(VectorOperators.LSHR, i * bits).and(mask).convert(VectorOperators.I2F, 0);
                    c.fma(s, b).intoArray(out, at + i * F);
                }
            }
        }
    }

    /** True when {@link #accumulateCodes} serves these rows: one group per row. */
    public boolean sumsCodes() {
        return groups == 1;
    }

    /**
     * Adds {@code Σ_{j<n} w[r·ldw + j]·code(t0 + j, e)} to {@code acc[r·cols + e]} (lane order) for rows
     * {@code r < rows} (at most four): the codes of rows {@code [t0, t0 + n)} straight from their words,
     * never stored as floats. Rows of one group ({@link #sumsCodes}): the caller folds each row's scale
     * into its weights and sums {@code weight·bias} itself. Per element one FMA chain in key order,
     * started from what acc holds.
     */
    public void accumulateCodes(MemorySegment packed, long base, long rowBytes, int t0, int n, float[] w, int ldw, int rows,
                                float[] acc) {
        int mask = (1 << bits) - 1;
        int w1 = rows > 1 ? ldw : 0, w2 = rows > 2 ? 2 * ldw : 0, w3 = rows > 3 ? 3 * ldw : 0;
        int o1 = rows > 1 ? cols : 0, o2 = rows > 2 ? 2 * cols : 0, o3 = rows > 3 ? 3 * cols : 0;
        for (int v = 0; v < vectors; v++) {
            long words = base + t0 * rowBytes + 4L * F * v;
            for (int i = 0; i < perWord; i += 2) {
                int shift0 = i * bits;
                int shift1 = shift0 + bits;
                int e = (v * perWord + i) * F;
                FloatVector a00 = FloatVector.fromArray(S, acc, e), a01 = FloatVector.fromArray(S, acc, e + F);
                FloatVector a10 = FloatVector.fromArray(S, acc, o1 + e), a11 = FloatVector.fromArray(S, acc, o1 + e + F);
                FloatVector a20 = FloatVector.fromArray(S, acc, o2 + e), a21 = FloatVector.fromArray(S, acc, o2 + e + F);
                FloatVector a30 = FloatVector.fromArray(S, acc, o3 + e), a31 = FloatVector.fromArray(S, acc, o3 + e + F);
                for (int j = 0; j < n; j++) {
                    IntVector word = IntVector.fromMemorySegment(IS, packed, words + j * rowBytes, LE);
                    FloatVector c0 = (FloatVector) word.lanewise(VectorOperators.LSHR, shift0).and(mask).convert(VectorOperators.I2F, 0);
                    FloatVector c1 = (FloatVector) word.lanewise(VectorOperators.LSHR, shift1).and(mask).convert(VectorOperators.I2F, 0);
                    FloatVector x = FloatVector.broadcast(S, w[j]);
                    a00 = c0.fma(x, a00);
                    a01 = c1.fma(x, a01);
                    x = FloatVector.broadcast(S, w[w1 + j]);
                    a10 = c0.fma(x, a10);
                    a11 = c1.fma(x, a11);
                    x = FloatVector.broadcast(S, w[w2 + j]);
                    a20 = c0.fma(x, a20);
                    a21 = c1.fma(x, a21);
                    x = FloatVector.broadcast(S, w[w3 + j]);
                    a30 = c0.fma(x, a30);
                    a31 = c1.fma(x, a31);
                }
                a00.intoArray(acc, e);
                a01.intoArray(acc, e + F);
                if (rows > 1) {
                    a10.intoArray(acc, o1 + e);
                    a11.intoArray(acc, o1 + e + F);
                }
                if (rows > 2) {
                    a20.intoArray(acc, o2 + e);
                    a21.intoArray(acc, o2 + e + F);
                }
                if (rows > 3) {
                    a30.intoArray(acc, o3 + e);
                    a31.intoArray(acc, o3 + e + F);
                }
            }
        }
    }

    /** Row t's single group scale and bias, t in {@code [t0, t0 + n)}, into {@code scales[t − t0]} and {@code biases[t − t0]}. */
    public void loadParameters(RowScales params, int t0, int n, float[] scales, float[] biases) {
        params.loadRows(t0, n, groups, scales, biases, 0);
    }
}
