package panamax.engine.wiring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendCapabilities;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.engine.plugins.DiscoveredPlugin;
import panamax.engine.plugins.PluginKind;
import panamax.engine.plugins.PluginRegistry;

class WiringTest {
    /** A codec declaration; the wiring never calls its factory. */
    record Codec(String id, String description) implements KvCodecProvider {
        public KvCodecCapabilities capabilities() {
            return KvCodecCapabilities.builder(description).build();
        }

        public CodecShape shape(PluginParams params, int headDim) {
            throw new UnsupportedOperationException("not planned in this test");
        }

        public KvCodec create(PluginParams params, CodecContext context) {
            throw new UnsupportedOperationException("not created in this test");
        }
    }

    record Cpu(String id) implements BackendProvider {
        public BackendCapabilities capabilities() {
            return new BackendCapabilities(Set.of(DType.F32), Set.of(), Set.of(), false, Set.of("cpu"));
        }

        public Optional<String> unavailableReason() {
            return Optional.empty();
        }

        public Backend create(BackendOptions options) {
            throw new UnsupportedOperationException("not created in this test");
        }
    }

    @Test
    void everyProviderIsInjectedIntoThePlannerKeyedByItsId() {
        PluginRegistry registry = PluginRegistry.of(List.of(
                DiscoveredPlugin.describe(PluginKind.BACKEND, "cpu", new Cpu("cpu"), "boot"),
                DiscoveredPlugin.describe(PluginKind.CODEC, "one", new Codec("one", "first"), "boot"),
                DiscoveredPlugin.describe(PluginKind.CODEC, "two", new Codec("two", "second"), "/plugins")), List.of());
        Engine engine = Engine.start(registry);
        assertEquals(registry, engine.registry());
        assertTrue(engine.models().isEmpty());
        assertEquals(Set.of("one", "two"), Wiring.injector(registry).getInstance(
                com.google.inject.Key.get(new com.google.inject.TypeLiteral<java.util.Map<String, KvCodecProvider>>() { })).keySet());
    }

    @Test
    void twoPluginsClaimingOneIdFailWiringAndTheMessageNamesBoth() {
        PluginRegistry registry = PluginRegistry.of(List.of(
                DiscoveredPlugin.describe(PluginKind.CODEC, "fp8", new Codec("fp8", "boot copy"), "boot"),
                DiscoveredPlugin.describe(PluginKind.CODEC, "fp8", new Codec("fp8", "plugin copy"), "/opt/plugins")), List.of());
        var e = assertThrows(PluginConflictException.class, () -> Engine.start(registry));
        assertEquals(1, e.conflicts().size());
        String line = e.conflicts().getFirst();
        assertTrue(line.startsWith("duplicate codec id 'fp8'") && line.contains("(boot)") && line.contains("(/opt/plugins)"), line);
    }
}
