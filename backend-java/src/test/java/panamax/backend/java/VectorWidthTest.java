package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import org.junit.jupiter.api.Test;

/**
 * Names the vector width this test JVM runs at (in the output of every run), and checks it against
 * the limit a vector-width run sets ({@code panamax.test.vector.bits}, with {@code -XX:MaxVectorSize}):
 * a run named 128-bit that ran wider kernels would pass for widths it never ran.
 */
class VectorWidthTest {
    @Test
    void runsNoWiderThanItsRunSays() {
        String limit = System.getProperty("panamax.test.vector.bits", "");
        System.out.println("[vectors] backend-java tests at " + VectorWidth.describe()
                + (limit.isBlank() ? ": the CPU's own width" : ": the run limited to " + limit + "-bit vectors"));
        // the kernels pair float, int and byte vectors of one shape
        assertEquals(VectorWidth.BITS, IntVector.SPECIES_PREFERRED.vectorBitSize(), "preferred int species");
        assertEquals(VectorWidth.BITS, ByteVector.SPECIES_PREFERRED.vectorBitSize(), "preferred byte species");
        if (!limit.isBlank()) {
            int bits = Integer.parseInt(limit.strip());
            // narrower than the limit only on a CPU narrower than it (the run then repeats the CPU's own width)
            assertTrue(VectorWidth.BITS <= bits, "a run limited to " + bits + "-bit vectors runs at " + VectorWidth.describe());
        }
    }
}
