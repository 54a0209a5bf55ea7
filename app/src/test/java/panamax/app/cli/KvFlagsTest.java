package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import panamax.api.plan.KvScheme;
import picocli.CommandLine;

class KvFlagsTest {
    private static KvScheme parse(String... args) {
        KvFlags flags = new KvFlags();
        new CommandLine(flags).parseArgs(args);
        return flags.scheme();
    }

    @Test
    void kvBitsAloneMeansAffineWithMlxLmsDefaultGroupSize() {
        KvScheme kv = parse("--kv-bits", "4");
        assertEquals("affine", kv.codec());
        assertEquals(Map.of("bits", "4", "group_size", "64"), kv.codecParams());
        assertEquals(Map.of("bits", "3", "group_size", "32"), parse("--kv-bits", "3", "--kv-group-size", "32").codecParams());
    }

    @Test
    void noFlagsMeansIdentity() {
        KvScheme kv = parse();
        assertEquals("identity", kv.codec());
        assertEquals(Map.of(), kv.codecParams());
    }

    @Test
    void kvCodecPassesTheFlagsItNamesAndRepeatableParams() {
        assertEquals(Map.of("key_bits", "4", "value_bits", "2"),
                parse("--kv-codec", "turboquant", "--kv-key-bits", "4", "--kv-value-bits", "2").codecParams());
        KvScheme custom = parse("--kv-codec", "mine", "--kv-param", "alpha=1", "--kv-param", "beta=x");
        assertEquals("mine", custom.codec());
        assertEquals(Map.of("alpha", "1", "beta", "x"), custom.codecParams());
    }

    @Test
    void startAndSizeFlagsCarryOver() {
        KvScheme kv = parse("--kv-bits", "8", "--quantized-kv-start", "512", "--max-kv-size", "4096");
        assertEquals(OptionalInt.of(512), kv.quantizedStart());
        assertEquals(OptionalInt.of(4096), kv.maxKvSize());
    }

    @Test
    void kvLayoutForcesTheLayoutOfEveryLayerAndIsOtherwiseLeftToThePlanner() {
        assertEquals(java.util.Optional.of("mine"), parse("--kv-layout", "mine").layout());
        assertEquals(java.util.Optional.empty(), parse("--kv-bits", "4").layout());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("--kv-layout", " ")).getMessage().startsWith("--kv-layout needs"));
    }

    @Test
    void contradictoryFlagsAreRejectedNamingTheFlag() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("--kv-group-size", "32")).getMessage().startsWith("--kv-group-size needs"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("--quantized-kv-start", "10")).getMessage().startsWith("--quantized-kv-start needs"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("--kv-bits", "4", "--kv-key-bits", "2")).getMessage().contains("--kv-codec"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("--kv-bits", "0")).getMessage().contains("at least 1"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> parse("--kv-codec", "affine", "--kv-bits", "4", "--kv-param", "bits=8")).getMessage().contains("contradicts"));
    }
}
