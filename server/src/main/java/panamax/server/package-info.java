/**
 * panamax's OpenAI-compatible HTTP server (Helidon SE): request parsing and validation, the
 * OpenAI response and error formats, server-sent events, API keys, Prometheus metrics and graceful
 * draining, over the engine's continuous-batching scheduler. See {@code docs/serving.md}.
 *
 * {@snippet :
 * try (PanamaxServer server = PanamaxServer.start(ServerOptions.defaults())) {
 *     server.serve(session, "my-model", ServingConfig.defaults());
 *     // curl http://127.0.0.1:8080/v1/chat/completions -d '{"messages":[{"role":"user","content":"Hi"}]}'
 * }
 * }
 */
package panamax.server;
