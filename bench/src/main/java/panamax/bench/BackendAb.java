package panamax.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A/B of two builds of backend-java on the decode and prefill products (x·Wᵀ over affine-quantized W, or over bf16 W
 * with {@code --bits 16}), in one JVM: each jar gets its own
 * class loader (backend classes from the jar, the api from the bench), and the two backends' calls
 * alternate (A B, then B A), so a busy machine slows both alike. With one backend thread ({@code --threads 1},
 * the default) each call's cost is the CPU time of the calling thread, which does all the work and which other
 * processes' load does not add to; with more, the wall-clock time of the call (where the two vCPUs share a core,
 * a kernel's instructions cost most with both threads busy), each timed call after 0.4 ms of untimed ones of its own
 * side, so that the other backend's helpers have stopped polling. Weights are cycled through enough copies to come
 * from DRAM: by default twice the last-level cache ({@link #defaultPoolMib}; this VM's L3 holds 480 MiB, and 8-bit
 * 2048 × 8192 products cycled through 256 MiB read 0.80 ms against 0.99 ms through 1 GiB, 2026-12-06). Prints the median and
 * quartiles per case, B ÷ A, and the largest difference between the two outputs relative to
 * {@code Σ|x|·max|w|}.
 *
 * <p>Usage: {@code java --add-modules jdk.incubator.vector -cp panamax-benchmarks.jar panamax.bench.BackendAb
 * A.jar B.jar [--bits 4,8,16] [--rows 1,8] [--shapes 2048:8192,8192:2048] [--calls 60] [--mib MiB] [--threads 1] [--warmup-ms 3000]}
 */
public final class BackendAb {
    /** Untimed calls of a side before each of its timed ones, with more than one thread ({@link #settle}). */
    private static final long SETTLE_NANOS = 400_000;

    private BackendAb() {
    }

    /**
     * MiB of weight copies per side when {@code --mib} is not given: twice the largest cache Linux reports
     * ({@code /sys/devices/system/cpu/cpu0/cache/index*}), at least 256, so the copies cycle from DRAM.
     */
    static int defaultPoolMib() {
        return poolMib(Path.of("/sys/devices/system/cpu/cpu0/cache"));
    }

    /** {@link #defaultPoolMib} from the cache descriptions ({@code index*}/{@code size}) under {@code caches}. */
    static int poolMib(Path caches) {
        long largest = 0;
        try (var dirs = Files.list(caches)) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                if (!dir.getFileName().toString().startsWith("index")) continue;
                largest = Math.max(largest, cacheBytes(Files.readString(dir.resolve("size")).trim()));
            }
        } catch (java.io.IOException | RuntimeException e) {
            return 256; // no sysfs (not Linux): the size that served before
        }
        return (int) Math.max(256, Math.min(Integer.MAX_VALUE, 2 * largest >> 20));
    }

    /** Bytes of a sysfs cache size such as {@code 491520K} or {@code 2M}. */
    static long cacheBytes(String size) {
        char unit = size.charAt(size.length() - 1);
        long shift = switch (unit) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            default -> -1;
        };
        return shift < 0 ? Long.parseLong(size) : Long.parseLong(size.substring(0, size.length() - 1)) << shift;
    }

    /** Loads {@code panamax.backend.java.*} from its jar first, everything else from the parent. */
    private static final class BackendFirst extends URLClassLoader {
        BackendFirst(Path jar, ClassLoader parent) throws Exception {
            super(new URL[] {jar.toUri().toURL()}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("panamax.backend.java.")) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) c = findClass(name);
                if (resolve) resolveClass(c);
                return c;
            }
        }
    }

    /** One build's operands: quantized weight copies, or bf16 ones ({@code bf16} non-null), and the x rows. */
    private record Side(String name, Backend backend, QuantizedMatrix[] weights, Tensor[] bf16, Tensor x, long[] nanos) {
        int copies() {
            return bf16 == null ? weights.length : bf16.length;
        }

        /** x·Wᵀ against weight copy i: as a linear layer runs it. */
        Tensor product(int i) {
            Ops ops = backend.ops();
            if (bf16 == null) return ops.quantizedMatmul(x, weights[i % weights.length], true);
            try (Tensor t = ops.transpose(bf16[i % bf16.length], 1, 0)) {
                return ops.matmul(x, t);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: BackendAb A.jar B.jar [--bits 4,8,16] [--rows 1,8] [--shapes 2048:8192,8192:2048] [--calls 60] [--mib MiB] [--threads 1] [--warmup-ms 3000]");
            System.exit(2);
        }
        int[] bitsList = {4, 8};
        int[] rowsList = {1, 8};
        String[] shapes = {"2048:8192", "8192:2048"};
        int calls = 60;
        int mib = defaultPoolMib();
        int threads = 1;
        long warmupMillis = 3000;
        for (int i = 2; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--bits" -> bitsList = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--rows" -> rowsList = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--shapes" -> shapes = v.split(",");
                case "--calls" -> calls = Integer.parseInt(v);
                case "--mib" -> mib = Integer.parseInt(v);
                case "--threads" -> threads = Integer.parseInt(v);
                case "--warmup-ms" -> warmupMillis = Long.parseLong(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + ": expected --bits, --rows, --shapes, --calls, --mib, --threads or --warmup-ms");
            }
        }
        Backend a = open(Path.of(args[0]), threads);
        Backend b = open(Path.of(args[1]), threads);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        // one thread does all the work only when the backend has one: with more, the calling thread's CPU time
        // misses the helpers' share, so each call is timed by the wall clock instead
        boolean cpuClock = threads == 1;
        System.out.printf(Locale.ROOT, "A = %s%nB = %s%nthreads %d, %d calls per case, weights cycled through %d MiB per side, %s%n",
                args[0], args[1], threads, calls, mib, cpuClock ? "CPU time of the calling thread" : "wall-clock time per call");
        System.out.println("| bits | k:n | rows | A median (q1-q3, min) | B median (q1-q3, min) | B / A (medians) | B / A (minima) | max |A-B| / (Σ|x|·max|w|) |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (String shape : shapes) {
            int k = MatVecQuantized.k(shape), n = MatVecQuantized.n(shape);
            for (int bits : bitsList) {
                for (int rows : rowsList) {
                    Side sa = side("A", a, k, n, bits, rows, mib, calls);
                    Side sb = side("B", b, k, n, bits, rows, mib, calls);
                    float[] ya = run(sa, 0), yb = run(sb, 0);
                    double scale = 0;
                    float[] xs = sa.backend.toFloats(sa.x);
                    for (int r = 0; r < rows; r++) {
                        double s = 0;
                        for (int i = 0; i < k; i++) s += Math.abs(xs[r * k + i]);
                        scale = Math.max(scale, s * 0.05);
                    }
                    double diff = 0;
                    for (int i = 0; i < ya.length; i++) diff = Math.max(diff, Math.abs(ya[i] - yb[i]));
                    // until C2 has compiled both sides' kernels (on a busy machine its thread gets little time), and at least once
                    // over every copy: a copy's first product repacks it into tiles, which must not fall into the timed calls
                    long warmEnd = System.nanoTime() + warmupMillis * 1_000_000L;
                    int everyCopy = Math.max(sa.copies(), sb.copies());
                    for (int w = 0; w < everyCopy || System.nanoTime() < warmEnd; w++) {
                        run(sa, w);
                        run(sb, w);
                    }
                    for (int c = 0; c < calls; c++) {
                        Side first = c % 2 == 0 ? sa : sb, second = c % 2 == 0 ? sb : sa;
                        for (Side s : List.of(first, second)) {
                            if (!cpuClock) settle(s, c);
                            long t0 = cpuClock ? mx.getCurrentThreadCpuTime() : System.nanoTime();
                            try (Tensor y = s.product(c)) {
                                s.backend.eval(y);
                            }
                            s.nanos[c] = (cpuClock ? mx.getCurrentThreadCpuTime() : System.nanoTime()) - t0;
                        }
                    }
                    double ma = median(sa.nanos), mb = median(sb.nanos);
                    System.out.printf(Locale.ROOT, "| %d | %s | %d | %s | %s | %.2f | %.2f | %.1e |%n", bits, shape, rows, quartiles(sa.nanos), quartiles(sb.nanos),
                            mb / ma, (double) min(sb.nanos) / min(sa.nanos), diff / scale);
                    close(sa);
                    close(sb);
                }
            }
        }
        a.close();
        b.close();
    }

    /**
     * Untimed products of this side for {@link #SETTLE_NANOS} before its timed one: the other backend's helpers poll
     * for 0.2 ms after their last chunk (backend-java's {@code Parallel}), and on two cores that polling took the core
     * this side's helper computes on, which doubled a 0.19 ms product (8-bit 2048 × 2048, one x row) in the timing.
     * This side's own helpers stay awake, as between a model's products; its weights come from the far side of the
     * copies' cycle, so the timed calls still read theirs from memory.
     */
    private static void settle(Side s, int c) {
        long end = System.nanoTime() + SETTLE_NANOS;
        do {
            try (Tensor y = s.product(c + s.copies() / 2)) { // a copy the timed calls reach only when it is out of the caches again
                s.backend.eval(y);
            }
        } while (System.nanoTime() < end);
    }

    private static Backend open(Path jar, int threads) throws Exception {
        ClassLoader loader = new BackendFirst(jar, BackendAb.class.getClassLoader());
        BackendProvider provider = (BackendProvider) Class.forName("panamax.backend.java.JavaBackendProvider", true, loader)
                .getConstructor().newInstance();
        return provider.create(new BackendOptions(threads, java.util.Optional.empty(), java.util.Map.of()));
    }

    private static Side side(String name, Backend backend, int k, int n, int bits, int rows, int mib, int calls) {
        Ops ops = backend.ops();
        SplittableRandom random = new SplittableRandom(Workloads.SEED);
        float[] w = new float[n * k];
        for (int i = 0; i < w.length; i++) w[i] = (float) ((random.nextDouble() * 2 - 1) * 0.05);
        float[] x = new float[rows * k];
        SplittableRandom rx = new SplittableRandom(Workloads.SEED + 1);
        for (int i = 0; i < x.length; i++) x[i] = (float) (rx.nextDouble() * 2 - 1);
        Tensor xt = backend.fromFloats(x, Shape.of(rows, k), DType.F32);
        if (bits == 16) {
            Tensor[] copies = new Tensor[(int) Math.max(1, ((long) mib << 20) / (2L * n * k))];
            for (int i = 0; i < copies.length; i++) copies[i] = loaded(backend, w, n, k);
            return new Side(name, backend, null, copies, xt, new long[calls]);
        }
        QuantizedMatrix first;
        try (Tensor wt = backend.fromFloats(w, Shape.of(n, k), DType.BF16)) {
            first = ops.quantize(wt, Workloads.GROUP_SIZE, bits);
        }
        long bytes = MatVecQuantized.bytes(k, n, bits);
        QuantizedMatrix[] weights = new QuantizedMatrix[(int) Math.max(1, ((long) mib << 20) / bytes)];
        weights[0] = first;
        for (int i = 1; i < weights.length; i++) {
            weights[i] = new QuantizedMatrix(ops.copy(first.packed()), ops.copy(first.scales()), ops.copy(first.biases()),
                    first.groupSize(), first.bits());
        }
        return new Side(name, backend, weights, null, xt, new long[calls]);
    }

    /**
     * W as bf16 in memory the caller owns, as a loaded model's weights are ({@code Backend.fromSegment}): the backend
     * repacks such a matrix into tiles at a first product of several rows, never its own buffers.
     */
    private static Tensor loaded(Backend backend, float[] w, int n, int k) {
        java.lang.foreign.MemorySegment segment = java.lang.foreign.Arena.ofAuto().allocate(2L * n * k, 64);
        for (int i = 0; i < w.length; i++) {
            segment.setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) (Float.floatToRawIntBits(w[i]) >>> 16));
        }
        return backend.fromSegment(segment, Shape.of(n, k), DType.BF16);
    }

    private static float[] run(Side s, int i) {
        try (Tensor y = s.product(i)) {
            return s.backend.toFloats(y);
        }
    }

    private static void close(Side s) {
        if (s.bf16 != null) {
            for (Tensor t : s.bf16) t.close();
        } else {
            for (QuantizedMatrix q : s.weights) {
                q.packed().close();
                q.scales().close();
                q.biases().close();
            }
        }
        s.x.close();
    }

    private static double median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static long min(long[] v) {
        return Arrays.stream(v).min().orElseThrow();
    }

    private static String quartiles(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return String.format(Locale.ROOT, "%.3f ms (%.3f-%.3f, min %.3f)", c[c.length / 2] / 1e6, c[c.length / 4] / 1e6, c[3 * c.length / 4] / 1e6,
                c[0] / 1e6);
    }
}
