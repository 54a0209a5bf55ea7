package panamax.backend.java;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;

/**
 * Calls every written-out kernel of {@code AffineDots}, {@code AffineTileDots} and {@code DecodedTileDots} once (by reflection, so that
 * kernels the generators add are called too) and prints how many it called. {@link AffineKernelCompilationTest} runs it in a JVM
 * that compiles each method at C1's profiling tier before its first call.
 */
public final class AffineKernelCalls {
    private AffineKernelCalls() {
    }

    public static void main(String[] args) throws ReflectiveOperationException {
        boolean longLoops = List.of(args).contains("long-loops");
        Class<?> dots = Class.forName("panamax.backend.java.kernel.AffineDots");
        int v = FloatVector.SPECIES_PREFERRED.length();
        VectorShuffle<Float> spread = VectorShuffle.fromOp(FloatVector.SPECIES_PREFERRED, l -> l / Math.max(1, v / 2));
        MemorySegment p = Arena.global().allocate(1 << 16, 64);
        float[] xa = new float[1 << 17], scales = new float[256], biases = new float[256], sums = new float[256], out = new float[256];
        int called = 0;
        for (Method m : dots.getDeclaredMethods()) {
            String name = m.getName();
            if (longLoops || !name.matches("rows?\\dx\\db\\dc\\dS?")) continue;
            m.setAccessible(true);
            int bits = Integer.parseInt(name.replaceAll(".*b(\\d)c.*", "$1"));
            int chunks = Integer.parseInt(name.replaceAll(".*c(\\d).*", "$1"));
            int k = 2 * chunks * v * (32 / bits);
            VectorShuffle<Float> s = name.endsWith("S") ? spread : null;
            Object[] common = {xa, 0, scales, biases, 0, 2, sums, 0};
            Object[] call;
            if (name.startsWith("rows") && !name.matches("rows\\dx1.*")) {
                call = concat(new Object[] {p, 0L, (long) k * bits / 8, k, 0, s}, common, new Object[] {out, 0, 1});
            } else if (name.startsWith("rows")) {
                // one x row: the parameter rows' stride follows the groups
                Object[] strided = {xa, 0, scales, biases, 0, 2, 2, sums, 0};
                call = concat(new Object[] {p, 0L, (long) k * bits / 8, k, 0, s}, strided, new Object[] {out, 0});
            } else if (name.startsWith("row1x1")) {
                call = concat(new Object[] {p, 0L, k, 0, s}, common, new Object[0]);
            } else {
                call = concat(new Object[] {p, 0L, k, 0, s}, common, new Object[] {out, 0, 1});
            }
            m.invoke(null, call);
            called++;
        }
        Class<?> tileDots = Class.forName("panamax.backend.java.kernel.AffineTileDots");
        for (Method m : tileDots.getDeclaredMethods()) {
            String name = m.getName();
            if (!name.matches("t\\dr\\db\\d")) continue;
            m.setAccessible(true);
            // long loops: enough trips in one call that the interpreter asks for a compilation of the running loop (OSR)
            int groups = longLoops ? 4 : 2, wordsPerGroup = longLoops ? 64 : 2;
            long tileInts = (long) groups * wordsPerGroup * v;
            for (int call = 0; call < 1; call++) {
                m.invoke(null, p, 0L, tileInts, groups, wordsPerGroup, xa, 0, p, 0L, 1L << 14, groups * v, sums, 0, new float[1 << 14], 0, 4 * v);
            }
            called++;
        }
        for (Method m : tileDots.getDeclaredMethods()) {
            if (!m.getName().matches("t\\dr\\d+h")) continue;
            m.setAccessible(true);
            int words = longLoops ? 256 : 4;
            for (int call = 0; call < 1; call++) {
                m.invoke(null, p, 0L, 4L * v, words, xa, 0, new float[1 << 14], 0, 4 * v);
            }
            called++;
        }
        Class<?> decoded = Class.forName("panamax.backend.java.kernel.DecodedTileDots");
        for (Method m : decoded.getDeclaredMethods()) {
            String name = m.getName();
            if (!name.matches("d\\dr\\d+|decode\\d")) continue;
            m.setAccessible(true);
            // long loops: a group of 1 024 k steps (the kernels), 256 words (the decoders)
            int gk = longLoops ? 1024 : 8, words = longLoops ? 256 : 2;
            if (name.startsWith("decode")) m.invoke(null, p, 0L, 0, words, new float[words * 16 * 2 * v], 2, 1); // 2-bit words hold 16 codes
            else m.invoke(null, new float[2 * gk * v], new float[4 * v], gk, xa, 0, sums, 0, 2, 1, new float[1 << 14], 0, 4 * v);
            called++;
        }
        System.out.println("called " + called + " kernels");
    }

    private static Object[] concat(Object[] a, Object[] b, Object[] c) {
        Object[] all = new Object[a.length + b.length + c.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        System.arraycopy(c, 0, all, a.length + b.length, c.length);
        return all;
    }
}
