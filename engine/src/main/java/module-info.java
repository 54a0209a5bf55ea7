/** The engine: plugin registry, execution planner, generation loop. */
module panamax.engine {
    requires transitive panamax.api;
}
