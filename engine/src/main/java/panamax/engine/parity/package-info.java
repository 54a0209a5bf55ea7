/**
 * Fidelity checks: a model's logits against reference logits (single prompt, KV-cached decode,
 * left-padded batch), under any KV scheme.
 *
 * {@snippet :
 * ParityReport report = ParityRun.run(registry, modelDir, modelDir.resolve("reference.safetensors"),
 *         KvScheme.identity(), Optional.empty());
 * }
 */
package panamax.engine.parity;
