/**
 * The layout conformance suite (TCK): {@link panamax.layout.tck.LayoutTck}, an abstract JUnit 5 class
 * that drives any {@code KvLayout} and a plain list model side by side through generated operation
 * sequences, plus the small test codecs it stores. A layout plugin runs it by subclassing
 * {@code LayoutTck} in its own tests; the codec TCK reuses its harness to host codecs in layouts.
 */
module panamax.layout.tck {
    requires transitive panamax.api;
    requires transitive org.junit.jupiter.api;
    requires transitive quicktheories;

    exports panamax.layout.tck;
    // JUnit invokes the inherited test methods reflectively
    opens panamax.layout.tck;

    uses panamax.api.tensor.BackendProvider;
}
