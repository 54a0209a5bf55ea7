package panamax.app.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import panamax.api.plan.KvScheme;
import picocli.CommandLine.Option;

/**
 * The KV flags of {@code panamax plan}, in mlx-lm's vocabulary, and their translation into a
 * {@link KvScheme}: {@code --kv-bits B} alone means codec {@code affine} with {@code bits=B} and
 * {@code group_size} from {@code --kv-group-size} (default 64); {@code --kv-codec X} selects any
 * codec and passes the flags it names as its params.
 */
public final class KvFlags {
    /** mlx-lm's default affine group size. */
    static final int DEFAULT_GROUP_SIZE = 64;

    @Option(names = "--kv-bits", paramLabel = "B", description = "quantize the KV cache to B bits (codec affine unless --kv-codec says otherwise)")
    Integer bits;

    @Option(names = "--kv-group-size", paramLabel = "G", description = "affine group size (default 64)")
    Integer groupSize;

    @Option(names = "--kv-codec", paramLabel = "ID", description = "KV codec plugin id: identity, affine, turboquant, or a third-party codec")
    String codec;

    @Option(names = "--kv-key-bits", paramLabel = "B", description = "key bits of a codec with separate key and value bits (turboquant)")
    Integer keyBits;

    @Option(names = "--kv-value-bits", paramLabel = "B", description = "value bits of a codec with separate key and value bits (turboquant)")
    Integer valueBits;

    @Option(names = "--kv-param", paramLabel = "NAME=VALUE", description = "any codec parameter, repeatable")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--quantized-kv-start", paramLabel = "S", description = "keep the first S tokens of each row in full precision, then convert to the codec")
    Integer quantizedStart;

    @Option(names = "--max-kv-size", paramLabel = "N", description = "keep at most N tokens per layer (a rotating cache keeping the first 4)")
    Integer maxKvSize;

    @Option(names = "--kv-layout", paramLabel = "ID", description = "KV layout plugin id for every layer (default: the planner's choice: full, rotating for windows, delayed for --quantized-kv-start)")
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
        nonNegative("--kv-bits", bits, 1);
        nonNegative("--kv-group-size", groupSize, 1);
        nonNegative("--kv-key-bits", keyBits, 1);
        nonNegative("--kv-value-bits", valueBits, 1);
        nonNegative("--quantized-kv-start", quantizedStart, 0);
        nonNegative("--max-kv-size", maxKvSize, 1);
        Map<String, String> values = new LinkedHashMap<>();
        String id;
        if (codec != null) {
            id = codec;
            put(values, "bits", bits, "--kv-bits");
            put(values, "group_size", groupSize, "--kv-group-size");
            put(values, "key_bits", keyBits, "--kv-key-bits");
            put(values, "value_bits", valueBits, "--kv-value-bits");
            params.forEach((name, value) -> {
                String earlier = values.putIfAbsent(name, value);
                if (earlier != null && !earlier.equals(value)) {
                    throw new IllegalArgumentException("--kv-param " + name + "=" + value + " contradicts " + name + "=" + earlier + " given by another flag");
                }
            });
        } else if (bits != null) {
            id = "affine";
            values.put("bits", bits.toString());
            values.put("group_size", Integer.toString(groupSize == null ? DEFAULT_GROUP_SIZE : groupSize));
            if (keyBits != null || valueBits != null) {
                throw new IllegalArgumentException("--kv-key-bits and --kv-value-bits need --kv-codec (e.g. --kv-codec turboquant), found --kv-bits alone");
            }
            if (!params.isEmpty()) throw new IllegalArgumentException("--kv-param needs --kv-codec naming the codec it is for");
        } else {
            id = "identity";
            if (groupSize != null) throw new IllegalArgumentException("--kv-group-size needs --kv-bits or --kv-codec affine");
            if (keyBits != null || valueBits != null) throw new IllegalArgumentException("--kv-key-bits and --kv-value-bits need --kv-codec (e.g. turboquant)");
            if (!params.isEmpty()) throw new IllegalArgumentException("--kv-param needs --kv-codec naming the codec it is for");
            if (quantizedStart != null) throw new IllegalArgumentException("--quantized-kv-start needs --kv-bits or --kv-codec: without them nothing is quantized");
        }
        if (layout != null && layout.isBlank()) throw new IllegalArgumentException("--kv-layout needs a layout id, found an empty one");
        return new KvScheme(id, values, optional(quantizedStart), optional(maxKvSize), Optional.ofNullable(layout));
    }

    private static void put(Map<String, String> values, String name, Integer value, String flag) {
        if (value != null) values.put(name, value.toString());
    }

    private static void nonNegative(String flag, Integer value, int min) {
        if (value != null && value < min) {
            throw new IllegalArgumentException(flag + " must be at least " + min + ", found " + value);
        }
    }

    private static OptionalInt optional(Integer value) {
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }
}
