/** Model evaluation on text: held-out perplexity. */
package panamax.engine.eval;
