package panamax.api.kv;

import java.util.List;

/**
 * One parameter a codec or layout plugin accepts, declared so that the CLI, the planner and
 * {@code panamax plugins} can list and check it before the plugin is instantiated.
 *
 * @param name         e.g. {@code bits}
 * @param description  one line for users
 * @param allowed      the allowed values as written on the command line; empty when any integer is allowed
 * @param defaultValue the value used when the user gives none
 */
public record ParamSpec(String name, String description, List<String> allowed, String defaultValue) {
    public ParamSpec {
        allowed = List.copyOf(allowed);
        if (!allowed.isEmpty() && !allowed.contains(defaultValue)) {
            throw new IllegalArgumentException(name + ": default " + defaultValue + " is not among " + allowed);
        }
    }

    /** The allowed values as users read them, e.g. {@code "2, 3, 4, 5, 6, 8"}. */
    public String allowedText() {
        return allowed.isEmpty() ? "any integer" : String.join(", ", allowed);
    }
}
