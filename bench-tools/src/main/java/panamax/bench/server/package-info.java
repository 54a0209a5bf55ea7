/**
 * {@code panamax bench serve} (the OpenAI-compatible server under concurrent clients) and
 * {@code panamax bench structured} (constrained decoding's per-token cost), published as the JDK
 * tools {@code panamax-bench-serve} and {@code panamax-bench-structured}.
 */
package panamax.bench.server;
