package panamax.api.plan;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How the user wants the KV cache stored, in mlx-lm's vocabulary.
 *
 * @param codec            codec id ({@code identity} when the user asked for nothing)
 * @param codecParams      raw codec parameters, e.g. {@code bits=4, group_size=64}
 * @param quantizedStart   when present, rows start in identity and switch to the codec at this
 *                         offset ({@code --quantized-kv-start}); absent means the codec from the first token
 * @param maxKvSize        when present, every layer keeps at most this many tokens ({@code --max-kv-size})
 * @param layout           a layout id forced by the user, or empty to let the planner choose
 */
public record KvScheme(String codec, Map<String, String> codecParams, OptionalInt quantizedStart,
                       OptionalInt maxKvSize, Optional<String> layout) {
    public KvScheme {
        codecParams = Map.copyOf(codecParams);
    }

    public static KvScheme identity() {
        return new KvScheme("identity", Map.of(), OptionalInt.empty(), OptionalInt.empty(), Optional.empty());
    }
}
