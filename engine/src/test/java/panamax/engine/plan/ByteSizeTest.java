package panamax.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import panamax.api.error.InvalidParameterException;

class ByteSizeTest {
    @Test
    void binaryAndDecimalUnitsAndPlainBytesParse() {
        assertEquals(8L << 30, ByteSize.parse("--memory-budget", "8GiB"));
        assertEquals(512L << 20, ByteSize.parse("--memory-budget", "512MiB"));
        assertEquals(512L << 20, ByteSize.parse("--memory-budget", "512m"));
        assertEquals(2_000_000_000L, ByteSize.parse("--memory-budget", "2GB"));
        assertEquals(1536L << 20, ByteSize.parse("--memory-budget", "1.5GiB"));
        assertEquals(12345, ByteSize.parse("--memory-budget", "12345"));
    }

    @Test
    void malformedSizesNameTheFlagAndTheExpectedForm() {
        var e = assertThrows(InvalidParameterException.class, () -> ByteSize.parse("--memory-budget", "8 gigs"));
        assertEquals("invalid --memory-budget = 8 gigs: allowed a byte count such as 8GiB, 512MiB, 2GB or 1073741824", e.getMessage());
        assertThrows(InvalidParameterException.class, () -> ByteSize.parse("--memory-budget", "-1"));
        assertThrows(InvalidParameterException.class, () -> ByteSize.parse("--memory-budget", "99999999TiB"));
    }

    @Test
    void humanSizesUseBinaryUnits() {
        assertEquals("1.13 GiB", ByteSize.human(1_207_959_552));
        assertEquals("512 B", ByteSize.human(512));
    }
}
