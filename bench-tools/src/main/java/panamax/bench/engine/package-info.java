/**
 * {@code panamax bench decode}: decode and prefill throughput of a Llama-shaped model with random
 * weights, loaded through the real Hugging Face path, against a floor measured in the same JVM.
 * Published as the JDK tool {@code panamax-bench-decode}.
 */
package panamax.bench.engine;
