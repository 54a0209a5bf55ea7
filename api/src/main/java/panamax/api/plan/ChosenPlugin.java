package panamax.api.plan;

/**
 * A plugin the plan uses, with where it came from.
 *
 * @param kind    {@code backend}, {@code codec}, {@code layout} or {@code model}
 * @param id      the plugin id
 * @param module  the JPMS module that provides it, with its version
 * @param origin  {@code boot} or the plugins directory it was loaded from
 */
public record ChosenPlugin(String kind, String id, String module, String origin) {
}
