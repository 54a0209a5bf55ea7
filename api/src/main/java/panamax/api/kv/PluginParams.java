package panamax.api.kv;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import panamax.api.error.InvalidParameterException;

/**
 * Parameter values for a codec or layout, by name, as strings (they come from flags and JSON).
 * {@link #resolve} checks them against a plugin's {@link ParamSpec}s and fills defaults.
 */
public record PluginParams(Map<String, String> values) {
    public PluginParams {
        values = Map.copyOf(new TreeMap<>(values));
    }

    public static PluginParams of(Map<String, String> values) {
        return new PluginParams(values);
    }

    public static PluginParams empty() {
        return new PluginParams(Map.of());
    }

    /**
     * Checks every value against {@code specs} and adds defaults for missing ones.
     *
     * @throws InvalidParameterException naming the parameter and its allowed values for an unknown
     *                                   name or a value that is not allowed
     */
    public PluginParams resolve(String pluginId, List<ParamSpec> specs) {
        Map<String, String> out = new TreeMap<>();
        for (String key : values.keySet()) {
            if (specs.stream().noneMatch(s -> s.name().equals(key))) {
                throw new InvalidParameterException(pluginId + " parameter '" + key + "'", values.get(key),
                        specs.isEmpty() ? "no parameters" : "parameters " + specs.stream().map(ParamSpec::name).toList());
            }
        }
        for (ParamSpec spec : specs) {
            String v = values.getOrDefault(spec.name(), spec.defaultValue());
            if (!spec.allowed().isEmpty() && !spec.allowed().contains(v)) {
                throw new InvalidParameterException(pluginId + " " + spec.name(), v, spec.allowedText());
            }
            if (spec.allowed().isEmpty()) {
                try {
                    Long.parseLong(v);
                } catch (NumberFormatException e) {
                    throw new InvalidParameterException(pluginId + " " + spec.name(), v, "an integer");
                }
            }
            out.put(spec.name(), v);
        }
        return new PluginParams(out);
    }

    /** The integer value of {@code name}. */
    public int getInt(String name) {
        String v = values.get(name);
        if (v == null) throw new IllegalArgumentException("parameter " + name + " missing from " + values);
        return Integer.parseInt(v);
    }

    public String get(String name) {
        String v = values.get(name);
        if (v == null) throw new IllegalArgumentException("parameter " + name + " missing from " + values);
        return v;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : ", ").append(k).append('=').append(v));
        return sb.toString();
    }
}
