/**
 * The backend conformance suite (TCK): abstract JUnit 5 classes that check every {@code Backend}
 * and {@code Ops} method against float64 references computed here in plain Java. A backend runs it
 * by subclassing each {@code *Tck} class in its own tests and returning its provider.
 */
module panamax.backend.tck {
    requires transitive panamax.api;
    requires transitive org.junit.jupiter.api;
    requires quicktheories;

    exports panamax.backend.tck;
    // JUnit invokes the inherited test methods reflectively
    opens panamax.backend.tck;
}
