/** The OpenAI-compatible HTTP server over the engine's batch scheduler ({@code panamax serve}). */
module panamax.server {
    requires transitive panamax.engine;
    requires io.helidon.webserver;
    requires com.fasterxml.jackson.databind;
    requires micrometer.core;
    requires micrometer.registry.prometheus;
    requires java.logging;

    exports panamax.server;
}
