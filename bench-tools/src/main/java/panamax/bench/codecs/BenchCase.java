package panamax.bench.codecs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PluginParams;

/**
 * One row of the codec benchmark: a codec, its parameters and a head dimension.
 *
 * @param keyBits   bits per key element as the user chose them (16 for bf16 identity)
 * @param valueBits bits per value element
 * @param groupSize affine group size, or 0 when the codec has none
 */
record BenchCase(KvCodecProvider provider, PluginParams params, int headDim, int keyBits, int valueBits, int groupSize,
                 boolean qjl) {

    String codec() {
        return provider.id();
    }

    /** The cases {@code panamax bench codecs} measures for one head dimension. */
    static List<BenchCase> defaults(int headDim) {
        List<BenchCase> cases = new ArrayList<>();
        cases.add(new BenchCase(installed("identity"), PluginParams.of(Map.of("dtype", "bf16")), headDim, 16, 16, 0, false));
        var affine = installed("affine");
        for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
            cases.add(new BenchCase(affine, PluginParams.of(Map.of("bits", "" + bits, "group_size", "64")), headDim, bits,
                    bits, 64, false));
        }
        var turbo = installed("turboquant");
        for (int bits = 1; bits <= 4; bits++) {
            cases.add(new BenchCase(turbo, PluginParams.of(Map.of("key_bits", "" + bits, "value_bits", "" + bits)), headDim,
                    bits, bits, 0, false));
        }
        for (int bits = 2; bits <= 4; bits++) {
            cases.add(new BenchCase(turbo, PluginParams.of(Map.of("key_bits", "" + bits, "value_bits", "" + bits, "qjl", "true")),
                    headDim, bits, bits, 0, true));
        }
        return cases;
    }

    /** The installed codec {@code id}, found as the engine finds codecs (the kv-codecs module exports nothing). */
    private static KvCodecProvider installed(String id) {
        for (KvCodecProvider provider : ServiceLoader.load(KvCodecProvider.class)) {
            if (provider.id().equals(id)) return provider;
        }
        throw new IllegalStateException("bench codecs: codec '" + id + "' is not installed (the panamax.kv.codecs module provides it)");
    }
}
