package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.stream.IntStream;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Assumptions;

/**
 * The vector width this JVM's kernels run at (the preferred species, which {@code -XX:MaxVectorSize}
 * caps: 16 gives NEON's 128 bits, 32 AVX2's 256), and the guard that keeps a kernel test from
 * passing with nothing checked: where the kernel has a path at this width, no case checked is a
 * failure; where it has none, a skip whose reason names the width.
 */
final class VectorWidth {
    /** Bits of the preferred float vector. */
    static final int BITS = FloatVector.SPECIES_PREFERRED.vectorBitSize();

    private VectorWidth() {
    }

    /** For messages: e.g. "256-bit vectors (Species[float, 8, S_256_BIT])". */
    static String describe() {
        return BITS + "-bit vectors (" + FloatVector.SPECIES_PREFERRED + ")";
    }

    /**
     * Goes on when {@code kernel} has a path here; else fails at the widths {@code pathBits} (where it
     * must have one) and is a reported skip naming the width at any other.
     */
    static void requirePath(boolean hasPath, String kernel, int... pathBits) {
        if (hasPath) return;
        if (IntStream.of(pathBits).anyMatch(b -> b == BITS)) fail(kernel + " has no path at " + describe() + ", where it must have one");
        Assumptions.abort(kernel + " has no path at " + describe());
    }

    /**
     * Ends a test that compared {@code checked} cases of {@code kernel}, which has a path at the
     * widths {@code pathBits}: none checked at one of those widths fails; none at another width is
     * a reported skip naming it.
     */
    static void requireChecked(int checked, String kernel, int... pathBits) {
        if (checked > 0) return;
        requirePath(false, kernel + " (no case checked)", pathBits);
    }
}
