/** The OpenAI-compatible HTTP server over the engine's batch scheduler ({@code panamax serve}). */
module panamax.server {
    requires transitive panamax.engine;
    requires io.helidon.webserver;
    requires com.fasterxml.jackson.databind;
    requires micrometer.core;
    requires micrometer.registry.prometheus;
    requires java.logging;
    requires java.net.http;
    // bench serve runs the bundled demo model unless told otherwise
    requires panamax.demo;

    exports panamax.server;

    // panamax bench serve (the CLI finds benchmarks as JDK tools in the boot layer)
    provides java.util.spi.ToolProvider with panamax.server.bench.ServeBenchTool, panamax.server.bench.StructuredBenchTool;
}
