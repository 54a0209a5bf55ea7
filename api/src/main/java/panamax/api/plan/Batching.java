package panamax.api.plan;

/** How requests share the engine: one at a time, or admitted into a running batch. */
public enum Batching {
    SERIAL, CONTINUOUS
}
