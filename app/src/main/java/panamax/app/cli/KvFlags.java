package panamax.app.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import panamax.api.plan.KvScheme;
import panamax.engine.plan.KvSchemeFlags;
import picocli.CommandLine.Option;

/**
 * The KV flags of the commands that run a model, as picocli options; their names, help, defaults
 * and translation into a {@link KvScheme} are {@link KvSchemeFlags}', which {@code panamax bench
 * decode} parses too.
 */
public final class KvFlags {
    @Option(names = KvSchemeFlags.BITS, paramLabel = "B", description = KvSchemeFlags.BITS_HELP)
    Integer bits;

    @Option(names = KvSchemeFlags.GROUP_SIZE, paramLabel = "G", description = KvSchemeFlags.GROUP_SIZE_HELP)
    Integer groupSize;

    @Option(names = KvSchemeFlags.CODEC, paramLabel = "ID", description = KvSchemeFlags.CODEC_HELP)
    String codec;

    @Option(names = KvSchemeFlags.KEY_BITS, paramLabel = "B", description = KvSchemeFlags.KEY_BITS_HELP)
    Integer keyBits;

    @Option(names = KvSchemeFlags.VALUE_BITS, paramLabel = "B", description = KvSchemeFlags.VALUE_BITS_HELP)
    Integer valueBits;

    @Option(names = KvSchemeFlags.PARAM, paramLabel = "NAME=VALUE", description = KvSchemeFlags.PARAM_HELP)
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = KvSchemeFlags.QUANTIZED_START, paramLabel = "S", description = KvSchemeFlags.QUANTIZED_START_HELP)
    Integer quantizedStart;

    @Option(names = KvSchemeFlags.MAX_KV_SIZE, paramLabel = "N", description = KvSchemeFlags.MAX_KV_SIZE_HELP)
    Integer maxKvSize;

    @Option(names = KvSchemeFlags.LAYOUT, paramLabel = "ID", description = KvSchemeFlags.LAYOUT_HELP)
    String layout;

    /** {@link #scheme()}, with a contradiction reported as a usage error of {@code command}. */
    KvScheme schemeFor(picocli.CommandLine command) {
        try {
            return scheme();
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(command, e.getMessage());
        }
    }

    /**
     * The scheme these flags ask for.
     *
     * @throws IllegalArgumentException with a one-line message naming the flag when flags contradict each other
     */
    KvScheme scheme() {
        return new KvSchemeFlags(optional(bits), optional(groupSize), Optional.ofNullable(codec), optional(keyBits),
                optional(valueBits), params, optional(quantizedStart), optional(maxKvSize), Optional.ofNullable(layout)).scheme();
    }

    private static OptionalInt optional(Integer value) {
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }
}
