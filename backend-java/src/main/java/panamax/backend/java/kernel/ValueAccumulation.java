package panamax.backend.java.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Attention's {@code p·V} for the query rows of one kv head: {@code acc[r·dv + e] = Σ_j p[r·tk + j]·V[j, e]}
 * over f32 or bf16 value rows read straight from the cache. Four query rows and four vectors of columns are
 * one register block (16 accumulators) where there are 32 vector registers (AVX-512), four rows and two vectors
 * (8) where there are 16 (AVX2: sixteen accumulators spilled to the stack there, one store and load per FMA), so
 * each value vector is loaded once per four rows and the accumulators never leave registers while j runs. Per element the sum is the same chain of fused
 * multiply-adds in the same order as one {@code MatVec.axpy} per (j, row) from zero, so the result
 * is bit-identical to that loop for finite values (the per-call overhead of 2 × 10^3 axpy calls per
 * head dominated p·V: one layer of a 1B model's decode attention over 556 tokens took 175 µs, now 98 µs).
 * Stateless; thread-safe.
 */
public final class ValueAccumulation {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int F = S.length();
    /** Vectors of columns in a register block: four with 32 vector registers, two with 16 ({@link #blocksNarrow}). */
    private static final int COLUMN_VECTORS = Integer.getInteger("panamax.values.columnVectors", F >= 16 ? 4 : 2);
    private static final int BLOCK = COLUMN_VECTORS * F;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    /** Shorts of half the preferred width: F of them widen to one float vector. */
    private static final VectorSpecies<Short> HALF = VectorSpecies.of(short.class, VectorShape.forBitSize(S.vectorBitSize() / 2));

    private ValueAccumulation() {
    }

    /** True when rows of {@code dv} values split into whole register blocks ({@link #COLUMN_VECTORS} float vectors). */
    public static boolean supports(int dv) {
        return dv > 0 && dv % BLOCK == 0;
    }

    /**
     * Overwrites {@code acc[r·dv .. r·dv + dv)} for {@code r < rows} with {@code Σ_{j=first}^{last} p[r·tk + j]·V[j]},
     * value row j at byte {@code base + j·rowBytes} of {@code v} (f32, unit stride). {@code p} must be
     * zero wherever a row does not attend.
     */
    public static void accumulate(MemorySegment v, long base, long rowBytes, int dv, float[] p, int tk, int rows,
                                  int first, int last, float[] acc) {
        blocks(v, base, rowBytes, false, dv, p, tk, rows, first, last, acc);
    }

    /** Both element types in one loop: measured as fast as one copy per type (decode attention, 17:47). */
    private static void blocks(MemorySegment v, long base, long rowBytes, boolean bf16, int dv, float[] p, int tk, int rows,
                               int first, int last, float[] acc) {
        if (COLUMN_VECTORS == 2) {
            blocksNarrow(v, base, rowBytes, bf16, dv, p, tk, rows, first, last, acc);
            return;
        }
        int bytes = bf16 ? 2 : 4;
        for (int r0 = 0; r0 < rows; r0 += 4) {
            int n = Math.min(4, rows - r0);
            // a block of fewer than four rows repeats its first row in the spare slots and drops their sums:
            // wasted multiply-adds for GQA groups of 1-3 heads, still faster than the axpy loop (groups of 2,
            // 540 tokens: 27.5 -> 20.4 us per decode step)
            int p0 = r0 * tk, p1 = (n > 1 ? r0 + 1 : r0) * tk, p2 = (n > 2 ? r0 + 2 : r0) * tk, p3 = (n > 3 ? r0 + 3 : r0) * tk;
            for (int c = 0; c < dv; c += BLOCK) {
                FloatVector a00 = FloatVector.zero(S), a01 = FloatVector.zero(S), a02 = FloatVector.zero(S), a03 = FloatVector.zero(S);
                FloatVector a10 = FloatVector.zero(S), a11 = FloatVector.zero(S), a12 = FloatVector.zero(S), a13 = FloatVector.zero(S);
                FloatVector a20 = FloatVector.zero(S), a21 = FloatVector.zero(S), a22 = FloatVector.zero(S), a23 = FloatVector.zero(S);
                FloatVector a30 = FloatVector.zero(S), a31 = FloatVector.zero(S), a32 = FloatVector.zero(S), a33 = FloatVector.zero(S);
                long col = base + (long) bytes * c;
                for (int j = first; j <= last; j++) {
                    long at = col + j * rowBytes;
                    FloatVector v0 = load(v, at, bf16);
                    FloatVector v1 = load(v, at + (long) bytes * F, bf16);
                    FloatVector v2 = load(v, at + 2L * bytes * F, bf16);
                    FloatVector v3 = load(v, at + 3L * bytes * F, bf16);
                    FloatVector q = FloatVector.broadcast(S, p[p0 + j]);
                    a00 = v0.fma(q, a00); a01 = v1.fma(q, a01); a02 = v2.fma(q, a02); a03 = v3.fma(q, a03);
                    q = FloatVector.broadcast(S, p[p1 + j]);
                    a10 = v0.fma(q, a10); a11 = v1.fma(q, a11); a12 = v2.fma(q, a12); a13 = v3.fma(q, a13);
                    q = FloatVector.broadcast(S, p[p2 + j]);
                    a20 = v0.fma(q, a20); a21 = v1.fma(q, a21); a22 = v2.fma(q, a22); a23 = v3.fma(q, a23);
                    q = FloatVector.broadcast(S, p[p3 + j]);
                    a30 = v0.fma(q, a30); a31 = v1.fma(q, a31); a32 = v2.fma(q, a32); a33 = v3.fma(q, a33);
                }
                int o = r0 * dv + c;
                a00.intoArray(acc, o); a01.intoArray(acc, o + F); a02.intoArray(acc, o + 2 * F); a03.intoArray(acc, o + 3 * F);
                if (n > 1) {
                    o += dv;
                    a10.intoArray(acc, o); a11.intoArray(acc, o + F); a12.intoArray(acc, o + 2 * F); a13.intoArray(acc, o + 3 * F);
                }
                if (n > 2) {
                    o += dv;
                    a20.intoArray(acc, o); a21.intoArray(acc, o + F); a22.intoArray(acc, o + 2 * F); a23.intoArray(acc, o + 3 * F);
                }
                if (n > 3) {
                    o += dv;
                    a30.intoArray(acc, o); a31.intoArray(acc, o + F); a32.intoArray(acc, o + 2 * F); a33.intoArray(acc, o + 3 * F);
                }
            }
        }
    }

    /** {@link #blocks} with two vectors of columns: eight accumulators, for 16 vector registers. Same sums. */
    private static void blocksNarrow(MemorySegment v, long base, long rowBytes, boolean bf16, int dv, float[] p, int tk, int rows,
                                     int first, int last, float[] acc) {
        int bytes = bf16 ? 2 : 4;
        for (int r0 = 0; r0 < rows; r0 += 4) {
            int n = Math.min(4, rows - r0);
            int p0 = r0 * tk, p1 = (n > 1 ? r0 + 1 : r0) * tk, p2 = (n > 2 ? r0 + 2 : r0) * tk, p3 = (n > 3 ? r0 + 3 : r0) * tk;
            for (int c = 0; c < dv; c += BLOCK) {
                FloatVector a00 = FloatVector.zero(S), a01 = FloatVector.zero(S);
                FloatVector a10 = FloatVector.zero(S), a11 = FloatVector.zero(S);
                FloatVector a20 = FloatVector.zero(S), a21 = FloatVector.zero(S);
                FloatVector a30 = FloatVector.zero(S), a31 = FloatVector.zero(S);
                long col = base + (long) bytes * c;
                for (int j = first; j <= last; j++) {
                    long at = col + j * rowBytes;
                    FloatVector v0 = load(v, at, bf16);
                    FloatVector v1 = load(v, at + (long) bytes * F, bf16);
                    FloatVector q = FloatVector.broadcast(S, p[p0 + j]);
                    a00 = v0.fma(q, a00); a01 = v1.fma(q, a01);
                    q = FloatVector.broadcast(S, p[p1 + j]);
                    a10 = v0.fma(q, a10); a11 = v1.fma(q, a11);
                    q = FloatVector.broadcast(S, p[p2 + j]);
                    a20 = v0.fma(q, a20); a21 = v1.fma(q, a21);
                    q = FloatVector.broadcast(S, p[p3 + j]);
                    a30 = v0.fma(q, a30); a31 = v1.fma(q, a31);
                }
                int o = r0 * dv + c;
                a00.intoArray(acc, o); a01.intoArray(acc, o + F);
                if (n > 1) {
                    o += dv;
                    a10.intoArray(acc, o); a11.intoArray(acc, o + F);
                }
                if (n > 2) {
                    o += dv;
                    a20.intoArray(acc, o); a21.intoArray(acc, o + F);
                }
                if (n > 3) {
                    o += dv;
                    a30.intoArray(acc, o); a31.intoArray(acc, o + F);
                }
            }
        }
    }

    /** {@link #accumulate} over bf16 value rows (widened exactly, so the sums are those of f32 copies). */
    public static void accumulateBf16(MemorySegment v, long base, long rowBytes, int dv, float[] p, int tk, int rows,
                                      int first, int last, float[] acc) {
        blocks(v, base, rowBytes, true, dv, p, tk, rows, first, last, acc);
    }

    /** F values at byte {@code at}: f32, or bf16 widened exactly (the bits move to the top half). */
    private static FloatVector load(MemorySegment v, long at, boolean bf16) {
        if (!bf16) return FloatVector.fromMemorySegment(S, v, at, LE);
        ShortVector h = ShortVector.fromMemorySegment(HALF, v, at, LE);
        return ((IntVector) h.convertShape(VectorOperators.S2I, IS, 0)).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }
}
