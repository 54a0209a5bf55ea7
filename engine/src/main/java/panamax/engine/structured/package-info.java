/**
 * Structured outputs: decoding constrained by a grammar so that the text always parses. A JSON
 * Schema ({@link panamax.engine.structured.JsonSchemaGrammar}, OpenAI's strict-mode subset),
 * OpenAI's {@code json_object} or llama.cpp's GBNF compiles once (cached by text) to a
 * {@link panamax.engine.structured.Grammar}, a pushdown automaton over code points fed UTF-8
 * bytes. Bound to a tokenizer's vocabulary ({@link panamax.engine.structured.TokenConstraint}),
 * each state's allowed tokens come from one walk of a trie over the tokens' bytes and are cached
 * by state; a row's {@link panamax.engine.structured.GrammarCursor} masks the logits before the
 * sampler's penalty, temperature and filters, allows end ids only where the text is complete, and
 * ends the row when nothing more may follow.
 *
 * {@snippet :
 * Grammar grammar = Constraints.jsonSchema(schema);            // or Constraints.gbnf(text), Constraints.jsonObject()
 * GenerationRequest request = new GenerationRequest(ids, sampling, 256, tokenizer.eosIds()).withConstraint(grammar);
 * GenerationOutput out = generator.generate(request, GenerationListener.NONE);   // out.results().get(0).text() parses
 * }
 */
package panamax.engine.structured;
