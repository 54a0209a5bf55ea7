/**
 * {@code panamax bench decode}: decode and prefill throughput of a Llama-shaped model with random
 * weights, loaded through the real Hugging Face path, against a floor measured in the same JVM; and
 * {@code panamax bench speculative}, speculative decoding against plain decode on the same target.
 * Published as the JDK tools {@code panamax-bench-decode} and {@code panamax-bench-speculative}.
 */
package panamax.bench.engine;
