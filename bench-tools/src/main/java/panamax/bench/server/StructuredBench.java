package panamax.bench.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import panamax.api.error.PanamaxException;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.structured.Constraints;
import panamax.engine.structured.Grammar;
import panamax.engine.structured.GrammarCursor;
import panamax.engine.structured.TokenConstraint;
import panamax.engine.structured.TokenVocabulary;
import panamax.api.model.Tokenizer;

/**
 * Decode speed with and without an output grammar, one row, same prompt, in one run: plain decode
 * (end ids ignored, so it runs its full length) against decode under a JSON schema whose long
 * string field keeps it going, for greedy and for sampled decoding (sampling builds a mask every
 * step; greedy checks the unmasked argmax first). Runs alternate so that machine noise hits both.
 * Prints decode tok/s of each and the ratio.
 */
final class StructuredBench {
    private static final String SCHEMA = """
            {"type":"object","properties":{"title":{"type":"string","maxLength":40},"year":{"type":"integer"},
             "tags":{"type":"array","items":{"enum":["whale","sea","ship","crew"]},"maxItems":3},
             "text":{"type":"string"}},"required":["title","year","tags","text"],"additionalProperties":false}""";

    private StructuredBench() {
    }

    static int run(List<String> args, PrintWriter out, PrintWriter err) {
        int tokens = 200, runs = 3;
        Optional<Path> model = Optional.empty();
        Optional<Path> masksOf = Optional.empty();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String value = i + 1 < args.size() ? args.get(i + 1) : null;
            switch (a) {
                case "--tokens" -> tokens = positive(a, value, err);
                case "--runs" -> runs = positive(a, value, err);
                case "--model" -> model = Optional.of(Path.of(require(a, value)));
                case "--masks" -> masksOf = Optional.of(Path.of(require(a, value)));
                case "--help", "-h" -> {
                    out.println("usage: panamax bench structured [--model DIR] [--tokens N (200)] [--runs R (3)]");
                    out.println("       panamax bench structured --masks DIR   (mask build times on DIR's tokenizer, no model)");
                    return 0;
                }
                default -> throw new IllegalArgumentException("unknown option " + a + "; expected --model, --tokens, --runs, --masks");
            }
            i++;
        }
        if (tokens < 0 || runs < 0) return 2;
        if (masksOf.isPresent()) return masks(masksOf.get(), out, err);
        try (ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), model.orElseGet(DemoModel::directory),
                KvScheme.identity(), Optional.empty())) {
            Grammar grammar = Constraints.jsonSchema(new ObjectMapper().readTree(SCHEMA));
            int[] prompt = session.tokenizer().encode("Call me Ishmael. Some years ago, never mind how long precisely,", false);
            out.printf("structured-output overhead: %s, prompt %d tokens, %d tokens per run, %d runs each (after one warm-up), %s%n",
                    model.map(Path::toString).orElse(DemoModel.NAME), prompt.length, tokens, runs, session.backend().name());
            out.printf("%-8s %14s %14s %8s %10s%n", "mode", "plain tok/s", "masked tok/s", "ratio", "masked n");
            for (SamplingParams sampling : List.of(SamplingParams.greedy(), SamplingParams.sample(0.8, 7).withTopP(0.95))) {
                Set<Integer> eos = session.tokenizer().eosIds();
                GenerationRequest plain = new GenerationRequest(prompt, sampling, tokens, Set.of());
                GenerationRequest masked = new GenerationRequest(prompt, sampling, tokens, eos).withConstraint(grammar);
                session.generator().generate(plain, GenerationListener.NONE);
                session.generator().generate(masked, GenerationListener.NONE);
                double plainTokens = 0, plainSeconds = 0, maskedTokens = 0, maskedSeconds = 0;
                for (int r = 0; r < runs; r++) {
                    GenerationOutput p = session.generator().generate(plain, GenerationListener.NONE);
                    GenerationOutput m = session.generator().generate(masked, GenerationListener.NONE);
                    plainTokens += p.stats().generatedTokens() - 1;
                    plainSeconds += p.stats().decodeSeconds();
                    maskedTokens += m.stats().generatedTokens() - 1;
                    maskedSeconds += m.stats().decodeSeconds();
                }
                double plainRate = plainTokens / plainSeconds, maskedRate = maskedTokens / maskedSeconds;
                out.printf("%-8s %14.1f %14.1f %7.2fx %10.0f%n", sampling.isGreedy() ? "greedy" : "sampled", plainRate, maskedRate,
                        maskedRate / plainRate, maskedTokens / Math.max(1, runs));
            }
            out.flush();
            return 0;
        } catch (PanamaxException e) {
            err.println("panamax bench structured: " + e.getMessage());
            return 1;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Times the masks of a few states of {@link #SCHEMA} on a tokenizer: the vocabulary trie's
     * build, then each state's first (cold) mask and a cached one.
     */
    private static int masks(Path directory, PrintWriter out, PrintWriter err) {
        try (Tokenizer tokenizer = ModelSession.loadTokenizer(directory)) {
            long start = System.nanoTime();
            TokenVocabulary vocabulary = TokenVocabulary.of(tokenizer);
            out.printf("%s: %s built in %.0f ms (token bytes read and trie)%n", directory, vocabulary, (System.nanoTime() - start) / 1e6);
            TokenConstraint constraint = Constraints.bind(Constraints.jsonSchema(new ObjectMapper().readTree(SCHEMA)), tokenizer);
            out.printf("%-44s %8s %12s %12s%n", "text so far", "allowed", "cold ms", "cached ms");
            for (String prefix : List.of("", "{", "{\"title\": \"", "{\"title\": \"Moby", "{\"title\": \"Moby\", \"year\": 18",
                    "{\"title\": \"M\", \"year\": 1, \"tags\": [", "{\"title\": \"M\", \"year\": 1, \"tags\": [], \"text\": \"")) {
                double[] ms = new double[2];
                int allowed = 0;
                for (int rep = 0; rep < 2; rep++) {
                    GrammarCursor cursor = constraint.start(tokenizer.eosIds());
                    for (int id : tokenizer.encode(prefix, false)) cursor.accept(id);
                    long t = System.nanoTime();
                    long[] bits = cursor.allowed();
                    ms[rep] = (System.nanoTime() - t) / 1e6;
                    allowed = 0;
                    for (long w : bits) allowed += Long.bitCount(w);
                }
                out.printf("%-44s %8d %12.2f %12.2f%n", "'" + prefix + "'", allowed, ms[0], ms[1]);
            }
            out.flush();
            return 0;
        } catch (PanamaxException | IllegalArgumentException e) {
            err.println("panamax bench structured: " + e.getMessage());
            return 1;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String require(String flag, String value) {
        if (value == null) throw new IllegalArgumentException(flag + " needs a value");
        return value;
    }

    private static int positive(String flag, String value, PrintWriter err) {
        try {
            int n = Integer.parseInt(require(flag, value));
            if (n >= 1) return n;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        err.println("panamax bench structured: " + flag + " must be a whole number >= 1, found " + value);
        return -1;
    }
}
