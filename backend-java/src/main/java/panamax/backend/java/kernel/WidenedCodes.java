package panamax.backend.java.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A matrix of MLX affine codes of a width the lane-along-k kernels do not take (3, 5 and 6 bits, whose codes straddle
 * words) copied at the width of its tiles ({@link AffineTiles#tileBits}: 4 or 8 bits), row-major in MLX's packing, so
 * that {@link QuantMatVec#vector} multiplies it as 4- or 8-bit codes where the weights get no tiles (vectors narrower
 * than 512 bits, or no room for tiles). Every code keeps its value; the group parameters are the matrix's own. The
 * codes live off-heap until {@link #close}.
 */
public final class WidenedCodes implements DerivedForm {
    private static final ValueLayout.OfInt WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Arena arena = Arena.ofShared();
    private final MemorySegment codes;
    private final int bits;
    private final long rowBytes;
    private final AtomicBoolean closed = new AtomicBoolean();

    private WidenedCodes(int n, int k, int bits) {
        this.bits = bits;
        this.rowBytes = (long) k * bits / 8;
        this.codes = OffHeapMemory.allocate(Math.max(1, n * rowBytes), arena);
    }

    /** True when a matrix of {@code bits}-bit codes takes the vector kernels once widened (and not as it is). */
    public static boolean supports(int bits, int k, int groupSize) {
        int wide = AffineTiles.tileBits(bits);
        return wide != bits && wide > 0 && QuantMatVec.supports(wide, k, groupSize);
    }

    /** Bytes the widened codes of an n × k matrix of {@code bits}-bit codes take. */
    public static long bytes(int n, int k, int bits) {
        return (long) n * k * AffineTiles.tileBits(bits) / 8;
    }

    /** W's rows {@code [0, n)} (row r's codes from byte {@code base + r·rowBytes} of {@code packed}) widened, on every thread of {@code par}. */
    public static WidenedCodes widen(Parallel par, MemorySegment packed, long base, long rowBytes, int n, int k, int bits) {
        int wide = AffineTiles.tileBits(bits);
        if (wide == 0 || wide == bits) throw new IllegalArgumentException("no widened form for " + bits + "-bit codes");
        WidenedCodes w = new WidenedCodes(n, k, wide);
        int words = k * w.bits / 32;
        try {
            par.forRange(n, Math.max(1, 65536 / Math.max(k, 1)), (r0, r1) -> {
                int[] codes = new int[k];
                int[] row = new int[words];
                for (int r = r0; r < r1; r++) {
                    AffineCodes.widenRow(packed, base + r * rowBytes, bits, k, w.bits, codes, row);
                    MemorySegment.copy(row, 0, w.codes, WORD, r * w.rowBytes, words);
                }
            });
        } catch (RuntimeException | Error e) {
            w.close();
            throw e;
        }
        return w;
    }

    /** The codes, row r from byte {@code r·rowBytes()}. */
    public MemorySegment codes() {
        return codes;
    }

    /** The width the codes are stored at: 4 or 8. */
    public int bits() {
        return bits;
    }

    public long rowBytes() {
        return rowBytes;
    }

    @Override
    public long bytes() {
        return codes.byteSize();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) arena.close();
    }
}
