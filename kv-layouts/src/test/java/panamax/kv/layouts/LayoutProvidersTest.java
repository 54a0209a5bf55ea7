package panamax.kv.layouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.error.InvalidParameterException;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.PluginParams;

class LayoutProvidersTest {
    private static PluginParams params(KvLayoutProvider p, Map<String, String> values) {
        return PluginParams.of(values).resolve(p.id(), p.capabilities().params());
    }

    @Test
    void theThreeLayoutsAreFoundByIdAndDeclareWhatThePlannerReads() {
        LayoutCapabilities full = Plugins.layout("full").capabilities();
        LayoutCapabilities rotating = Plugins.layout("rotating").capabilities();
        LayoutCapabilities delayed = Plugins.layout("delayed").capabilities();
        for (LayoutCapabilities c : new LayoutCapabilities[] {full, rotating, delayed}) {
            assertTrue(c.batchable() && c.trimmable() && c.hostsRotatedValues(), c.description());
            assertTrue(c.alignsRows() && c.capturable(), c.description());
        }
        assertFalse(full.bounded() || delayed.bounded());
        assertTrue(rotating.bounded());
        assertTrue(delayed.convertsCodec());
        assertFalse(full.convertsCodec() || rotating.convertsCodec());
        assertEquals(java.util.List.of("window", "keep"), rotating.params().stream().map(p -> p.name()).toList());
        assertEquals(java.util.List.of("start", "storage", "window", "keep"), delayed.params().stream().map(p -> p.name()).toList());
        assertEquals("5000", delayed.params().getFirst().defaultValue(), "mlx-lm's default quantized-kv-start");
    }

    @Test
    void storedTokensIsTheWindowForRingsAndTheContextOtherwise() {
        KvLayoutProvider rotating = Plugins.layout("rotating");
        KvLayoutProvider delayed = Plugins.layout("delayed");
        KvLayoutProvider full = Plugins.layout("full");
        assertEquals(100, rotating.storedTokens(params(rotating, Map.of("window", "512")), 100));
        assertEquals(512, rotating.storedTokens(params(rotating, Map.of("window", "512")), 10_000));
        assertEquals(10_000, full.storedTokens(params(full, Map.of()), 10_000));
        assertEquals(10_000, delayed.storedTokens(params(delayed, Map.of("start", "0")), 10_000));
        assertEquals(64, delayed.storedTokens(params(delayed, Map.of("storage", "rotating", "window", "64")), 10_000));
    }

    @Test
    void aKeepThatIsNotBelowTheWindowIsRefusedNamingTheParameter() {
        KvLayoutProvider rotating = Plugins.layout("rotating");
        var e = assertThrows(InvalidParameterException.class, () -> rotating.create(
                params(rotating, Map.of("window", "4", "keep", "4")), new LayoutContext(null, 0, 1, null, null)));
        assertEquals("rotating keep", e.parameter());
        assertTrue(e.getMessage().contains("less than window 4"), e.getMessage());
    }

    @Test
    void aNegativeStartOrAZeroWindowIsRefused() {
        KvLayoutProvider delayed = Plugins.layout("delayed");
        var start = assertThrows(InvalidParameterException.class, () -> delayed.create(
                params(delayed, Map.of("start", "-1")), new LayoutContext(null, 0, 1, null, null)));
        assertEquals("delayed start", start.parameter());
        var window = assertThrows(InvalidParameterException.class, () -> delayed.create(
                params(delayed, Map.of("storage", "rotating", "window", "0")), new LayoutContext(null, 0, 1, null, null)));
        assertEquals("delayed window", window.parameter());
    }
}
