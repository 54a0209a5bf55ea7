/**
 * The codec conformance suite (TCK): {@link panamax.codec.tck.CodecTck}, an abstract JUnit 5 class
 * that checks any {@code KvCodec} against the reconstruction bound its provider declares, its
 * declared planes and bytes, float64 attention over its decoded cache, and hosting by every layout
 * found with ServiceLoader. A codec plugin runs it by subclassing {@code CodecTck} in its own tests.
 */
module panamax.codec.tck {
    requires transitive panamax.layout.tck;

    exports panamax.codec.tck;
    // JUnit invokes the inherited test methods reflectively
    opens panamax.codec.tck;

    uses panamax.api.kv.KvLayoutProvider;
}
