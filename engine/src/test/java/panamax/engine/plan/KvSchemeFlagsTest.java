package panamax.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import panamax.api.plan.KvScheme;

/** The KV flags as a hand-written parser (bench decode's) gives them: the same scheme as the CLI's picocli options. */
class KvSchemeFlagsTest {
    private static KvScheme scheme(String... flagsAndValues) {
        return KvSchemeFlags.parse(List.of(flagsAndValues)).scheme();
    }

    @Test
    void kvBitsAloneMeansAffineWithTheDefaultGroupSize() {
        KvScheme kv = scheme("--kv-bits", "4");
        assertEquals("affine", kv.codec());
        assertEquals(Map.of("bits", "4", "group_size", "64"), kv.codecParams());
        assertEquals(Map.of("bits", "3", "group_size", "32"), scheme("--kv-group-size", "32", "--kv-bits", "3").codecParams());
        assertEquals(KvScheme.identity().codec(), scheme().codec());
        assertEquals(Map.of(), scheme().codecParams());
    }

    @Test
    void repeatedParamsAndTheFlagsACodecNamesReachItsParams() {
        assertEquals(Map.of("key_bits", "4", "value_bits", "2"),
                scheme("--kv-codec", "turboquant", "--kv-key-bits", "4", "--kv-value-bits", "2").codecParams());
        KvScheme custom = scheme("--kv-codec", "mine", "--kv-param", "alpha=1", "--kv-param", "beta=x=y");
        assertEquals("mine", custom.codec());
        assertEquals(Map.of("alpha", "1", "beta", "x=y"), custom.codecParams());
        KvScheme rotating = scheme("--kv-bits", "8", "--quantized-kv-start", "512", "--max-kv-size", "4096");
        assertEquals(OptionalInt.of(512), rotating.quantizedStart());
        assertEquals(OptionalInt.of(4096), rotating.maxKvSize());
    }

    @Test
    void badValuesAndContradictionsNameTheFlag() {
        assertEquals("--kv-bits: expected an integer, found 'four'",
                assertThrows(IllegalArgumentException.class, () -> scheme("--kv-bits", "four")).getMessage());
        assertEquals("--kv-param: expected NAME=VALUE, found 'alpha'",
                assertThrows(IllegalArgumentException.class, () -> scheme("--kv-codec", "x", "--kv-param", "alpha")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> scheme("--kv-group-size", "32")).getMessage()
                .startsWith("--kv-group-size needs --kv-bits or --kv-codec"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> scheme("--kv-bits", "0")).getMessage()
                .equals("--kv-bits must be at least 1, found 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> scheme("--kv-bits")).getMessage()
                .startsWith("--kv-bits: expected a value"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> scheme("--kv-heads", "4")).getMessage()
                .startsWith("--kv-heads: not a KV flag"));
    }

    @Test
    void onlyTheKvFlagsAreRecognised() {
        for (String flag : List.of(KvSchemeFlags.BITS, KvSchemeFlags.GROUP_SIZE, KvSchemeFlags.CODEC, KvSchemeFlags.KEY_BITS,
                KvSchemeFlags.VALUE_BITS, KvSchemeFlags.PARAM, KvSchemeFlags.QUANTIZED_START, KvSchemeFlags.MAX_KV_SIZE)) {
            assertTrue(KvSchemeFlags.isKvFlag(flag), flag);
            assertTrue(KvSchemeFlags.USAGE.contains(flag), flag);
        }
        assertFalse(KvSchemeFlags.isKvFlag("--kv-heads"));
        assertEquals("identity", KvSchemeFlags.none().scheme().codec());
    }
}
