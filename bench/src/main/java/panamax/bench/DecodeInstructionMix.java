package panamax.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.*;

/**
 * Cycles per vector of 4-bit codes for instruction mixes of an affine matrix-vector loop, codes in L1 (rows of
 * 2048 codes, 8 rows), one thread, best of 60 rounds: what bounds the kernels per code (issue 23). No project
 * code: each variant is the loop written out here. Usage: {@code java --add-modules jdk.incubator.vector -cp
 * panamax-benchmarks.jar panamax.bench.DecodeInstructionMix [GHz]} (the clock only converts ns to cycles).
 */
public final class DecodeInstructionMix {
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int V = IS.length();
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int K = 2048, ROWS = 8;

    // full: shift, and, cvt, fma(s,b), fma(x) — the previous kernels' one-row chain, one row
    static float full(MemorySegment p, long row, float[] x, float s, float b) {
        FloatVector a = FloatVector.zero(S), sv = FloatVector.broadcast(S, s), bv = FloatVector.broadcast(S, b);
        for (int c = 0, word = 0; c < K; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, p, row + 4L * word, LE);
            for (int j = 0; j < 8; j++) a = ((FloatVector) w.lanewise(VectorOperators.LSHR, 4 * j).and(15).convert(VectorOperators.I2F, 0)).fma(sv, bv).fma(FloatVector.fromArray(S, x, c + j * V), a);
        }
        return a.reduceLanes(VectorOperators.ADD);
    }
    // two independent rows interleaved (more chains)
    static float full2(MemorySegment p, long row, float[] x, float s, float b) {
        FloatVector a = FloatVector.zero(S), a1 = FloatVector.zero(S), sv = FloatVector.broadcast(S, s), bv = FloatVector.broadcast(S, b);
        long r1 = row + K / 2;
        for (int c = 0, word = 0; c < K; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, p, row + 4L * word, LE), w1 = IntVector.fromMemorySegment(IS, p, r1 + 4L * word, LE);
            for (int j = 0; j < 8; j++) {
                FloatVector xv = FloatVector.fromArray(S, x, c + j * V);
                a = ((FloatVector) w.lanewise(VectorOperators.LSHR, 4 * j).and(15).convert(VectorOperators.I2F, 0)).fma(sv, bv).fma(xv, a);
                a1 = ((FloatVector) w1.lanewise(VectorOperators.LSHR, 4 * j).and(15).convert(VectorOperators.I2F, 0)).fma(sv, bv).fma(xv, a1);
            }
        }
        return a.add(a1).reduceLanes(VectorOperators.ADD);
    }
    // D form: shift, and, cvt, fma(x) ; per chunk fma(d, s)
    static float dform(MemorySegment p, long row, float[] x, float s, float b) {
        FloatVector a = FloatVector.zero(S), sv = FloatVector.broadcast(S, s);
        for (int c = 0, word = 0; c < K; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, p, row + 4L * word, LE);
            FloatVector d = FloatVector.zero(S);
            for (int j = 0; j < 8; j++) d = ((FloatVector) w.lanewise(VectorOperators.LSHR, 4 * j).and(15).convert(VectorOperators.I2F, 0)).fma(FloatVector.fromArray(S, x, c + j * V), d);
            a = d.fma(sv, a);
        }
        return a.reduceLanes(VectorOperators.ADD);
    }
    // decode only to a panel: shift, and, cvt, fma(s,b), store
    static float panel(MemorySegment p, long row, float[] x, float s, float b, float[] dst) {
        FloatVector sv = FloatVector.broadcast(S, s), bv = FloatVector.broadcast(S, b);
        for (int c = 0, word = 0; c < K; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, p, row + 4L * word, LE);
            for (int j = 0; j < 8; j++) ((FloatVector) w.lanewise(VectorOperators.LSHR, 4 * j).and(15).convert(VectorOperators.I2F, 0)).fma(sv, bv).intoArray(dst, c + j * V);
        }
        return dst[5];
    }
    // f32 dot of the panel against x (what follows the panel decode for one x row)
    static float dot(float[] w, float[] x) {
        FloatVector a = FloatVector.zero(S);
        for (int i = 0; i < K; i += V) a = FloatVector.fromArray(S, w, i).fma(FloatVector.fromArray(S, x, i), a);
        return a.reduceLanes(VectorOperators.ADD);
    }
    // table look-up (LUT-GEMM style): per group the 16 values fma(q, s, b) in two vectors, each code looked up
    // by a two-vector rearrange (vpermps x2 + blend on AVX2) instead of a conversion and an FMA
    static float lut(MemorySegment p, long row, float[] x, float s, float b) {
        FloatVector a = FloatVector.zero(S);
        FloatVector lo = ((FloatVector) IntVector.zero(IS).addIndex(1).convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(S, s), FloatVector.broadcast(S, b));
        FloatVector hi = ((FloatVector) IntVector.zero(IS).addIndex(1).add(V).convert(VectorOperators.I2F, 0)).fma(FloatVector.broadcast(S, s), FloatVector.broadcast(S, b));
        for (int c = 0, word = 0; c < K; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, p, row + 4L * word, LE);
            for (int j = 0; j < 8; j++) {
                VectorShuffle<Float> idx = w.lanewise(VectorOperators.LSHR, 4 * j).and(15).toShuffle().cast(S);
                a = lo.rearrange(idx, hi).fma(FloatVector.fromArray(S, x, c + j * V), a);
            }
        }
        return a.reduceLanes(VectorOperators.ADD);
    }
    // no conversion: shift, and, reinterpret, fma(x)
    static float nocvt(MemorySegment p, long row, float[] x, float s, float b) {
        FloatVector a = FloatVector.zero(S);
        for (int c = 0, word = 0; c < K; c += 8 * V, word += V) {
            IntVector w = IntVector.fromMemorySegment(IS, p, row + 4L * word, LE);
            for (int j = 0; j < 8; j++) a = w.lanewise(VectorOperators.LSHR, 4 * j).and(15).reinterpretAsFloats().fma(FloatVector.fromArray(S, x, c + j * V), a);
        }
        return a.reduceLanes(VectorOperators.ADD);
    }
    // just fma(x) on reinterpreted words (floor: loads + fma)
    static float fmaonly(MemorySegment p, long row, float[] x, float s, float b) {
        FloatVector a = FloatVector.zero(S);
        for (int c = 0, word = 0; c < K; c += 8 * V, word += V) {
            FloatVector w = IntVector.fromMemorySegment(IS, p, row + 4L * word, LE).reinterpretAsFloats();
            for (int j = 0; j < 8; j++) a = w.fma(FloatVector.fromArray(S, x, c + j * V), a);
        }
        return a.reduceLanes(VectorOperators.ADD);
    }

    private DecodeInstructionMix() {
    }

    public static void main(String[] args) {
        double ghz = Double.parseDouble(args.length > 0 ? args[0] : "2.45");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment p = arena.allocate(K / 2 * ROWS * 2, 64);
            for (long i = 0; i < p.byteSize(); i++) p.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 37));
            float[] x = new float[K];
            float[] dst = new float[K];
            for (int i = 0; i < K; i++) x[i] = (float) Math.sin(i);
            String[] names = {"full (shift,and,cvt,fma sb,fma x) 1 row", "full, 2 rows interleaved", "D form (shift,and,cvt,fma x)", "panel decode (..,fma sb,store)", "f32 dot of panel", "no cvt (shift,and,fma x)", "fma x only", "LUT: shift,and,2-vector rearrange,fma x"};
            double[] best = new double[names.length];
            java.util.Arrays.fill(best, Double.MAX_VALUE);
            float sink = 0;
            int reps = 2000;
            for (int round = 0; round < 60; round++) {
                for (int v = 0; v < names.length; v++) {
                    long t0 = System.nanoTime();
                    for (int r = 0; r < reps; r++) {
                        long row = (long) (r % ROWS) * (K / 2);
                        sink += switch (v) {
                            case 0 -> full(p, row, x, 0.5f, 0.25f);
                            case 1 -> full2(p, row % ((ROWS - 1) * (K / 2)), x, 0.5f, 0.25f);
                            case 2 -> dform(p, row, x, 0.5f, 0.25f);
                            case 3 -> panel(p, row, x, 0.5f, 0.25f, dst);
                            case 4 -> dot(dst, x);
                            case 5 -> nocvt(p, row, x, 0.5f, 0.25f);
                            case 7 -> lut(p, row, x, 0.5f, 0.25f);
                            default -> fmaonly(p, row, x, 0.5f, 0.25f);
                        };
                    }
                    double ns = (System.nanoTime() - t0) / (double) reps;
                    double vectors = (v == 1 ? 2.0 : 1.0) * K / V;
                    best[v] = Math.min(best[v], ns / vectors);
                }
            }
            for (int v = 0; v < names.length; v++) System.out.printf("%-46s %.3f ns per vector of %d codes = %.2f cycles at %.2f GHz%n", names[v], best[v], V, best[v] * ghz, ghz);
            System.out.println("(checksum " + sink + ")");
        }
    }
}
