/**
 * Text generation on a loaded model: chunked prefill, the decode loop, sampling (temperature,
 * top-k, top-p, min-p, repetition penalty, seed), stop ids and stop strings, UTF-8-safe streaming
 * and batches of left-padded prompts. Usable without the CLI.
 *
 * {@snippet :
 * try (ModelSession session = ModelSession.open(registry, Path.of("models/llama"), KvScheme.identity(), Optional.empty())) {
 *     Tokenizer tokenizer = session.tokenizer();
 *     GenerationRequest request = new GenerationRequest(tokenizer.encode("Once upon a time", true),
 *             SamplingParams.sample(0.7, 42), 64, tokenizer.eosIds());
 *     GenerationOutput out = session.generator().generate(request, new GenerationListener() {
 *         public void onText(int row, String delta) { System.out.print(delta); }
 *     });
 *     System.out.println(out.stats().summary());
 * }
 * }
 */
package panamax.engine.generate;
