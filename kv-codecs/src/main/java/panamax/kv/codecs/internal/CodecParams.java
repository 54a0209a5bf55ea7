package panamax.kv.codecs.internal;

import java.util.List;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PluginParams;

/** Checks codec parameters against their specs, so providers read only valid values. */
public final class CodecParams {
    private CodecParams() {
    }

    /**
     * {@code params} resolved against {@code specs} (defaults filled in); resolving already
     * resolved parameters changes nothing.
     *
     * @throws panamax.api.error.InvalidParameterException naming the parameter and its allowed values
     */
    public static PluginParams resolve(String codecId, PluginParams params, List<ParamSpec> specs) {
        return params.resolve(codecId, specs);
    }

    /** The allowed values of a spec as written on the command line. */
    public static List<String> strings(int... values) {
        return java.util.Arrays.stream(values).mapToObj(Integer::toString).toList();
    }
}
