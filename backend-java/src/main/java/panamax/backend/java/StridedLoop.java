package panamax.backend.java;

import panamax.backend.java.kernel.Parallel;

/**
 * Walks a row-major index space shared by several strided operands, handing out runs ("units")
 * of at most {@link #CHUNK} consecutive innermost elements with each operand's element offset.
 * Axes of size 1 are dropped and axes that are contiguous for every operand are merged first, so a
 * contiguous tensor is one long run. Immutable; {@link #execute} is thread-safe.
 */
final class StridedLoop {
    static final int CHUNK = 4096;

    /** Consumes one run: {@code base[k]} is operand k's first element, {@code n} the run length. */
    @FunctionalInterface
    interface Run {
        void run(long[] base, int n);
    }

    /** Makes a fresh {@link Run} (with its own buffers) for each parallel range. */
    @FunctionalInterface
    interface RunFactory {
        Run create();
    }

    private final int[] dims;
    private final long[][] strides;
    private final long[] offsets;
    final long[] innerStrides;
    private final int inner;
    private final int chunksPerRow;
    private final long units;

    StridedLoop(int[] fullDims, long[] offsets, long[]... fullStrides) {
        int ops = fullStrides.length;
        int[] d = new int[Math.max(fullDims.length, 1)];
        long[][] s = new long[ops][d.length];
        int r = 0;
        for (int i = 0; i < fullDims.length; i++) {
            if (fullDims[i] == 1) continue;
            boolean merge = r > 0;
            for (int k = 0; k < ops && merge; k++) {
                merge = s[k][r - 1] == fullStrides[k][i] * fullDims[i];
            }
            if (merge) {
                d[r - 1] *= fullDims[i];
                for (int k = 0; k < ops; k++) s[k][r - 1] = fullStrides[k][i];
            } else {
                d[r] = fullDims[i];
                for (int k = 0; k < ops; k++) s[k][r] = fullStrides[k][i];
                r++;
            }
        }
        long total = 1;
        for (int x : fullDims) total *= x;
        if (r == 0) { // scalar or all size-1 axes
            r = 1;
            d[0] = total == 0 ? 0 : 1;
        }
        this.dims = java.util.Arrays.copyOf(d, r);
        this.strides = new long[ops][];
        this.innerStrides = new long[ops];
        for (int k = 0; k < ops; k++) {
            strides[k] = java.util.Arrays.copyOf(s[k], r);
            innerStrides[k] = strides[k][r - 1];
        }
        this.offsets = offsets.clone();
        this.inner = dims[r - 1];
        this.chunksPerRow = Math.max(1, (inner + CHUNK - 1) / CHUNK);
        long rows = inner == 0 ? 0 : total / inner;
        this.units = inner == 0 ? 0 : rows * chunksPerRow;
    }

    long units() {
        return units;
    }

    /**
     * The longest run any unit has ({@code min(CHUNK, innermost extent)}): what a {@link Run}'s buffers need. Sized
     * by it, a small op's buffers are as small as its runs (a 2k-element op zeroed 48–96 KB of CHUNK buffers per call).
     */
    int runLength() {
        return Math.min(CHUNK, inner);
    }

    /** Runs every unit, in parallel when the index space is large. */
    void execute(Parallel parallel, long totalElements, RunFactory factory) {
        if (units == 0) return;
        if (units > Integer.MAX_VALUE) throw new IllegalArgumentException("tensor too large: " + units + " runs");
        int grain = (int) Math.max(1, (1L << 16) / Math.min(inner, CHUNK));
        if (totalElements < (1L << 16)) grain = Integer.MAX_VALUE;
        parallel.forRange((int) units, grain, (from, to) -> runUnits(from, to, factory.create()));
    }

    void runUnits(long from, long to, Run run) {
        int ops = offsets.length;
        long[] base = new long[ops];
        int r = dims.length;
        for (long u = from; u < to; u++) {
            long row = u / chunksPerRow;
            int start = (int) (u % chunksPerRow) * CHUNK;
            int n = Math.min(CHUNK, inner - start);
            for (int k = 0; k < ops; k++) base[k] = offsets[k] + start * strides[k][r - 1];
            long rest = row;
            for (int a = r - 2; a >= 0; a--) {
                long idx = rest % dims[a];
                rest /= dims[a];
                for (int k = 0; k < ops; k++) base[k] += idx * strides[k][a];
            }
            run.run(base, n);
        }
    }

    /** Runs every unit on the calling thread with {@code shift[k]} added to operand k's offsets. */
    void runAll(long[] shift, Run run) {
        long[] shifted = new long[shift.length];
        runUnits(0, units, (base, n) -> {
            for (int k = 0; k < shift.length; k++) shifted[k] = base[k] + shift[k];
            run.run(shifted, n);
        });
    }
}
