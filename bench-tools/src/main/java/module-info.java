/**
 * The benchmarks of {@code panamax bench}: decode and prefill throughput against a measured floor
 * ({@code decode}), speculative decoding ({@code speculative}), KV codecs ({@code codecs}), the HTTP
 * server under concurrent clients ({@code serve}) and constrained decoding ({@code structured}).
 * Each is a JDK tool {@code panamax-bench-NAME} that the CLI finds in the boot layer. The module
 * measures the product modules through their exported APIs and finds backends and codecs through
 * {@link java.util.ServiceLoader} as the engine does; it exports nothing.
 */
module panamax.bench {
    requires panamax.engine;
    requires panamax.model.support; // to say where auto placed the weights it measured
    requires panamax.server;
    requires panamax.demo;
    requires com.fasterxml.jackson.databind;
    requires java.management; // JitActivity reads the JIT's compile time
    requires jdk.incubator.vector; // the read-bandwidth and FMA probes of bench decode

    uses panamax.api.tensor.BackendProvider;
    uses panamax.api.kv.KvCodecProvider;

    provides java.util.spi.ToolProvider with
            panamax.bench.engine.DecodeBenchTool,
            panamax.bench.engine.SpeculativeBenchTool,
            panamax.bench.codecs.CodecBenchTool,
            panamax.bench.server.ServeBenchTool,
            panamax.bench.server.StructuredBenchTool;
}
