/**
 * Guice wiring: each discovered plugin is one {@code MapBinder} entry keyed by its id.
 *
 * {@snippet :
 * ExecutionPlanner planner = Wiring.planner(PluginRegistry.discover(Optional.empty()));
 * }
 */
package panamax.engine.wiring;
