package panamax.engine.plan;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import panamax.api.plan.KvScheme;

/**
 * The KV flags every command that runs a model accepts ({@code panamax generate}, {@code serve},
 * {@code plan}, {@code chat}, {@code parity}, {@code perplexity} and {@code panamax bench decode}),
 * in mlx-lm's vocabulary, with their one translation into a {@link KvScheme}: {@code --kv-bits B}
 * alone means codec {@code affine} with {@code bits=B} and {@code group_size} from
 * {@code --kv-group-size} (default {@value #DEFAULT_GROUP_SIZE}); {@code --kv-codec X} selects any
 * codec and passes the flags it names as its params. The flag names and help texts are constants so
 * that picocli's annotations and hand-written parsers use the same ones. Immutable.
 *
 * @param bits           {@code --kv-bits}
 * @param groupSize      {@code --kv-group-size}
 * @param codec          {@code --kv-codec}
 * @param keyBits        {@code --kv-key-bits}
 * @param valueBits      {@code --kv-value-bits}
 * @param params         {@code --kv-param NAME=VALUE}, repeatable, in the order given
 * @param quantizedStart {@code --quantized-kv-start}
 * @param maxKvSize      {@code --max-kv-size}
 * @param layout         {@code --kv-layout}: a layout plugin for every layer instead of the planner's choice
 */
public record KvSchemeFlags(OptionalInt bits, OptionalInt groupSize, Optional<String> codec, OptionalInt keyBits,
                            OptionalInt valueBits, Map<String, String> params, OptionalInt quantizedStart, OptionalInt maxKvSize,
                            Optional<String> layout) {
    /** mlx-lm's default affine group size. */
    public static final int DEFAULT_GROUP_SIZE = 64;

    public static final String BITS = "--kv-bits";
    public static final String GROUP_SIZE = "--kv-group-size";
    public static final String CODEC = "--kv-codec";
    public static final String KEY_BITS = "--kv-key-bits";
    public static final String VALUE_BITS = "--kv-value-bits";
    public static final String PARAM = "--kv-param";
    public static final String QUANTIZED_START = "--quantized-kv-start";
    public static final String MAX_KV_SIZE = "--max-kv-size";
    public static final String LAYOUT = "--kv-layout";

    public static final String BITS_HELP = "quantize the KV cache to B bits (codec affine unless --kv-codec says otherwise)";
    public static final String GROUP_SIZE_HELP = "affine group size (default " + DEFAULT_GROUP_SIZE + ")";
    public static final String CODEC_HELP = "KV codec plugin id: identity, affine, turboquant, or a third-party codec";
    public static final String KEY_BITS_HELP = "key bits of a codec with separate key and value bits (turboquant)";
    public static final String VALUE_BITS_HELP = "value bits of a codec with separate key and value bits (turboquant)";
    public static final String PARAM_HELP = "any codec parameter, repeatable";
    public static final String QUANTIZED_START_HELP = "keep the first S tokens of each row in full precision, then convert to the codec";
    public static final String MAX_KV_SIZE_HELP = "keep at most N tokens per layer (a rotating cache keeping the first 4)";
    public static final String LAYOUT_HELP = "KV layout plugin id for every layer (default: the planner's choice: full, rotating for windows, delayed for --quantized-kv-start)";

    /** The flags in one line of a usage text. */
    public static final String USAGE = "[--kv-bits B] [--kv-group-size G] [--kv-codec ID] [--kv-key-bits B] [--kv-value-bits B]"
            + " [--kv-param NAME=VALUE]... [--quantized-kv-start S] [--max-kv-size N] [--kv-layout ID]";

    private static final Set<String> NAMES = Set.of(BITS, GROUP_SIZE, CODEC, KEY_BITS, VALUE_BITS, PARAM, QUANTIZED_START, MAX_KV_SIZE, LAYOUT);

    public KvSchemeFlags {
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params)); // in the order given
    }

    /** No KV flag given: the identity codec over the full layout. */
    public static KvSchemeFlags none() {
        return new KvSchemeFlags(OptionalInt.empty(), OptionalInt.empty(), Optional.empty(), OptionalInt.empty(),
                OptionalInt.empty(), Map.of(), OptionalInt.empty(), OptionalInt.empty(), Optional.empty());
    }

    /** Whether {@code flag} is one of these flags (each takes one value). */
    public static boolean isKvFlag(String flag) {
        return NAMES.contains(flag);
    }

    /**
     * The flags of a hand-parsed command line, given as flag, value, flag, value... (only flags for
     * which {@link #isKvFlag} holds; {@code --kv-param} may repeat, a later value of another flag wins).
     *
     * @throws IllegalArgumentException naming the flag when a value is not what it expects
     */
    public static KvSchemeFlags parse(List<String> flagsAndValues) {
        if (flagsAndValues.size() % 2 != 0) {
            throw new IllegalArgumentException(flagsAndValues.getLast() + ": expected a value, found the end of the arguments");
        }
        Map<String, String> single = new LinkedHashMap<>();
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < flagsAndValues.size(); i += 2) {
            String flag = flagsAndValues.get(i), value = flagsAndValues.get(i + 1);
            if (!isKvFlag(flag)) throw new IllegalArgumentException(flag + ": not a KV flag; expected one of " + USAGE);
            if (flag.equals(PARAM)) {
                int eq = value.indexOf('=');
                if (eq <= 0) throw new IllegalArgumentException(PARAM + ": expected NAME=VALUE, found '" + value + "'");
                params.put(value.substring(0, eq), value.substring(eq + 1));
            } else {
                single.put(flag, value);
            }
        }
        return new KvSchemeFlags(integer(single, BITS), integer(single, GROUP_SIZE), Optional.ofNullable(single.get(CODEC)),
                integer(single, KEY_BITS), integer(single, VALUE_BITS), params, integer(single, QUANTIZED_START),
                integer(single, MAX_KV_SIZE), Optional.ofNullable(single.get(LAYOUT)));
    }

    /**
     * The scheme these flags ask for.
     *
     * @throws IllegalArgumentException with a one-line message naming the flag when flags contradict each other
     */
    public KvScheme scheme() {
        atLeast(BITS, bits, 1);
        atLeast(GROUP_SIZE, groupSize, 1);
        atLeast(KEY_BITS, keyBits, 1);
        atLeast(VALUE_BITS, valueBits, 1);
        atLeast(QUANTIZED_START, quantizedStart, 0);
        atLeast(MAX_KV_SIZE, maxKvSize, 1);
        Map<String, String> values = new LinkedHashMap<>();
        String id;
        if (codec.isPresent()) {
            id = codec.get();
            put(values, "bits", bits);
            put(values, "group_size", groupSize);
            put(values, "key_bits", keyBits);
            put(values, "value_bits", valueBits);
            params.forEach((name, value) -> {
                String earlier = values.putIfAbsent(name, value);
                if (earlier != null && !earlier.equals(value)) {
                    throw new IllegalArgumentException(PARAM + " " + name + "=" + value + " contradicts " + name + "=" + earlier + " given by another flag");
                }
            });
        } else if (bits.isPresent()) {
            id = "affine";
            values.put("bits", Integer.toString(bits.getAsInt()));
            values.put("group_size", Integer.toString(groupSize.orElse(DEFAULT_GROUP_SIZE)));
            if (keyBits.isPresent() || valueBits.isPresent()) {
                throw new IllegalArgumentException(KEY_BITS + " and " + VALUE_BITS + " need " + CODEC + " (e.g. --kv-codec turboquant), found " + BITS + " alone");
            }
            if (!params.isEmpty()) throw new IllegalArgumentException(PARAM + " needs " + CODEC + " naming the codec it is for");
        } else {
            id = "identity";
            if (groupSize.isPresent()) throw new IllegalArgumentException(GROUP_SIZE + " needs " + BITS + " or " + CODEC + " affine");
            if (keyBits.isPresent() || valueBits.isPresent()) {
                throw new IllegalArgumentException(KEY_BITS + " and " + VALUE_BITS + " need " + CODEC + " (e.g. turboquant)");
            }
            if (!params.isEmpty()) throw new IllegalArgumentException(PARAM + " needs " + CODEC + " naming the codec it is for");
            if (quantizedStart.isPresent()) {
                throw new IllegalArgumentException(QUANTIZED_START + " needs " + BITS + " or " + CODEC + ": without them nothing is quantized");
            }
        }
        if (layout.isPresent() && layout.get().isBlank()) throw new IllegalArgumentException(LAYOUT + " needs a layout id, found an empty one");
        return new KvScheme(id, values, quantizedStart, maxKvSize, layout);
    }

    private static OptionalInt integer(Map<String, String> values, String flag) {
        String text = values.get(flag);
        if (text == null) return OptionalInt.empty();
        try {
            return OptionalInt.of(Integer.parseInt(text.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + ": expected an integer, found '" + text + "'");
        }
    }

    private static void put(Map<String, String> values, String name, OptionalInt value) {
        if (value.isPresent()) values.put(name, Integer.toString(value.getAsInt()));
    }

    private static void atLeast(String flag, OptionalInt value, int min) {
        if (value.isPresent() && value.getAsInt() < min) {
            throw new IllegalArgumentException(flag + " must be at least " + min + ", found " + value.getAsInt());
        }
    }
}
