package panamax.kv.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import panamax.api.error.InvalidParameterException;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.DType;

/** The three codecs as the engine discovers them: ids, parameters, planes, and refusals of bad values. */
class CodecParametersTest {

    private static Map<String, KvCodecProvider> discovered() {
        Map<String, KvCodecProvider> out = new TreeMap<>();
        for (KvCodecProvider p : ServiceLoader.load(KvCodecProvider.class)) out.put(p.id(), p);
        return out;
    }

    private static InvalidParameterException refused(String codec, Map<String, String> params, int headDim) {
        KvCodecProvider p = discovered().get(codec);
        return assertThrows(InvalidParameterException.class,
                () -> p.shape(PluginParams.of(params).resolve(codec, p.capabilities().params()), headDim));
    }

    private static void assertMentions(InvalidParameterException e, String... parts) {
        for (String part : parts) assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' should mention " + part);
    }

    @Test
    void serviceLoaderFindsTheThreeCodecsWithTheirDeclarations() {
        Map<String, KvCodecProvider> found = discovered();
        assertTrue(found.keySet().containsAll(List.of("identity", "affine", "turboquant")), "found " + found.keySet());
        assertTrue(found.get("turboquant").capabilities().rotatedValues());
        assertTrue(found.get("turboquant").capabilities().attentionOnPlanes());
        assertTrue(found.get("affine").capabilities().attentionOnPlanes());
        assertTrue(!found.get("affine").capabilities().rotatedValues() && !found.get("identity").capabilities().rotatedValues());
        assertEquals(List.of("bits", "group_size"), found.get("affine").capabilities().params().stream().map(s -> s.name()).toList());
        assertEquals(List.of("key_bits", "value_bits", "qjl", "seed"),
                found.get("turboquant").capabilities().params().stream().map(s -> s.name()).toList());
    }

    @Test
    void planesDeclareTheBytesTheyStore() {
        Map<String, KvCodecProvider> found = discovered();
        assertEquals(2 * 128 * 2, found.get("identity").shape(PluginParams.empty(), 128).bytesPerTokenPerHead());
        assertEquals(2 * 128 * 4, found.get("identity").shape(PluginParams.of(Map.of("dtype", "f32")), 128).bytesPerTokenPerHead());
        // affine scales follow the activation dtype
        assertEquals(4.5, found.get("affine").shape(PluginParams.empty(), 128, DType.BF16).bitsPerElement());
        assertEquals(5.0, found.get("affine").shape(PluginParams.empty(), 128, DType.F32).bitsPerElement());
        // turboquant 4/3 at d=128: codes 64 + 48 bytes, norms 4 + 4 bytes
        var tq = found.get("turboquant").shape(PluginParams.of(Map.of("key_bits", "4", "value_bits", "3")), 128);
        assertEquals(64 + 4 + 48 + 4, tq.bytesPerTokenPerHead());
        // with qjl: 3 codebook bits + 1 sign bit + two norms
        var qjl = found.get("turboquant").shape(PluginParams.of(Map.of("key_bits", "4", "qjl", "true")), 128);
        assertEquals(List.of("codes", "norm", "qjl", "residual_norm"), qjl.keyPlanes().stream().map(p -> p.name()).toList());
        assertEquals(48 + 4 + 16 + 4 + 64 + 4, qjl.bytesPerTokenPerHead());
        // head dim 80 is padded to 128 for the rotation: codes for 128 coordinates
        assertEquals(64, found.get("turboquant").shape(PluginParams.empty(), 80).keyPlanes().getFirst().width() * 4);
    }

    @Test
    void affineRefusesSevenBitsNamingTheAllowedWidths() {
        assertMentions(refused("affine", Map.of("bits", "7"), 128), "bits", "7", "2, 3, 4, 5, 6, 8");
    }

    @Test
    void affineRefusesGroupsOf48NamingTheAllowedSizes() {
        assertMentions(refused("affine", Map.of("group_size", "48"), 128), "group_size", "48", "32, 64, 128");
    }

    @Test
    void affineRefusesHeadDimsNotDivisibleByTheGroupNamingBoth() {
        assertMentions(refused("affine", Map.of("group_size", "64"), 96), "group_size", "64", "head dim 96", "32");
        assertMentions(refused("affine", Map.of(), 80), "group_size", "head dim 80", "none of 32, 64, 128");
    }

    @Test
    void turboquantRefusesBitsOutsideItsLists() {
        assertMentions(refused("turboquant", Map.of("key_bits", "5"), 128), "key_bits", "5", "1, 2, 3, 4, 8");
        assertMentions(refused("turboquant", Map.of("value_bits", "8"), 128), "value_bits", "8", "1, 2, 3, 4");
        assertMentions(refused("turboquant", Map.of("qjl", "maybe"), 128), "qjl", "maybe", "false, true");
        assertMentions(refused("turboquant", Map.of("seed", "abc"), 128), "seed", "abc", "integer");
        assertMentions(refused("turboquant", Map.of("key_bits", "8", "qjl", "true"), 128), "key_bits", "qjl", "1, 2, 3, 4");
    }

    @Test
    void identityRefusesUnknownDtypesAndEveryCodecRefusesUnknownParameters() {
        assertMentions(refused("identity", Map.of("dtype", "fp8"), 128), "dtype", "fp8", "bf16, f16, f32");
        assertMentions(refused("affine", Map.of("bitz", "4"), 128), "bitz", "bits", "group_size");
    }
}
