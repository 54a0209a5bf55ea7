package panamax.model.support.config;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * MLX affine weight quantization from config.json: {@code quantization: {group_size, bits}} with
 * optional per-module overrides ({@code "model.layers.0.mlp.down_proj": {group_size, bits}}, or
 * {@code false} for a module kept in full precision).
 *
 * @param groupSize default group size
 * @param bits      default bits
 * @param overrides per module path, its own setting; empty means not quantized
 */
public record QuantizationConfig(int groupSize, int bits, Map<String, Optional<Setting>> overrides) {
    private static final Set<Integer> BITS = Set.of(2, 3, 4, 5, 6, 8);
    private static final Set<Integer> GROUPS = Set.of(32, 64, 128);

    /** The group size and bits of one module. */
    public record Setting(int groupSize, int bits) {
    }

    public QuantizationConfig {
        overrides = Map.copyOf(overrides);
    }

    /** The setting of {@code module} (e.g. {@code model.layers.0.self_attn.q_proj}); empty when it is not quantized. */
    public Optional<Setting> forModule(String module) {
        return overrides.getOrDefault(module, Optional.of(new Setting(groupSize, bits)));
    }

    /**
     * The {@code quantization} (or {@code quantization_config}) object of {@code config}, when present.
     *
     * @throws panamax.api.error.BadModelFileException naming the field when it is not MLX affine quantization
     */
    public static Optional<QuantizationConfig> read(HfConfig config) {
        Optional<HfConfig> q = config.child("quantization").or(() -> config.child("quantization_config"));
        if (q.isEmpty()) return Optional.empty();
        HfConfig node = q.get();
        Optional<String> method = node.string("quant_method").or(() -> node.string("mode"));
        if (method.isPresent() && !method.get().equals("affine") && !method.get().equals("mlx")) {
            throw node.bad(method.isPresent() && node.has("quant_method") ? "quant_method" : "mode",
                    "MLX affine quantization (mode \"affine\")", "\"" + method.get() + "\"");
        }
        Setting defaults = setting(node);
        Map<String, Optional<Setting>> overrides = new java.util.HashMap<>();
        node.root().fields().forEachRemaining(e -> {
            String key = e.getKey();
            if (Set.of("group_size", "bits", "quant_method", "mode").contains(key)) return;
            if (e.getValue().isBoolean() && !e.getValue().booleanValue()) {
                overrides.put(key, Optional.empty());
            } else if (e.getValue().isObject()) {
                overrides.put(key, Optional.of(setting(node.child(key).orElseThrow())));
            } else {
                throw node.bad(key, "a {group_size, bits} object or false for a per-module override", e.getValue());
            }
        });
        return Optional.of(new QuantizationConfig(defaults.groupSize(), defaults.bits(), overrides));
    }

    private static Setting setting(HfConfig node) {
        int group = node.requireInt("group_size", 1, 1024);
        int bits = node.requireInt("bits", 1, 32);
        if (!GROUPS.contains(group)) throw node.bad("group_size", "32, 64 or 128", group);
        if (!BITS.contains(bits)) throw node.bad("bits", "2, 3, 4, 5, 6 or 8", bits);
        return new Setting(group, bits);
    }
}
