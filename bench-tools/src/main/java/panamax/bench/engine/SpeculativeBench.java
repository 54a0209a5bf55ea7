package panamax.bench.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import panamax.engine.speculative.TruncatedDraft;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import panamax.api.plan.KvScheme;
import panamax.bench.jit.JitActivity;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.speculative.Speculation;
import panamax.engine.speculative.DraftLength;
import panamax.engine.speculative.SpeculationPlan;
import panamax.engine.speculative.SpeculationPlanner;
import panamax.engine.speculative.SpeculationRequest;
import panamax.engine.speculative.SpeculationStats;

/**
 * {@code panamax bench speculative}: greedy decode of one prompt, plain and speculative in turns
 * within one run (so both see the same machine load), reporting each one's median generated tok/s,
 * the drafter's acceptance rate and tokens per step, the speed-up, and whether the two outputs are
 * identical (they must be: greedy speculation reproduces plain greedy). The target is a model
 * directory, or a random checkpoint of a preset shape written as {@code bench decode} writes them
 * (with a word-level tokenizer so it runs like any model directory); the drafter is prompt lookup
 * or a draft model, by default the target's first {@code --draft-layers} layers.
 */
final class SpeculativeBench {
    /** Warm-up rounds (both paths over the whole request) at most, and their time limit. */
    private static final int MAX_WARMUP_ROUNDS = 8;
    private static final long WARMUP_LIMIT_NANOS = 60_000_000_000L;
    static final String USAGE = """
            usage: panamax bench speculative [--model DIR | --preset 1b|125m|tiny] [--draft ngram|model] [--draft-model DIR]
                                             [--draft-layers 2] [--num-draft-tokens K] [--ngram-max 3] [--ngram-min 2] [--prompt copy|story]
                                             [--max-tokens 128] [--repeats 3] [--weights bf16|q8|q4] [--seed 1] [--later-layers-scale 1] [--json]
              --model DIR         the target model (e.g. "$(panamax demo-model)"); or
              --preset NAME       a random Llama checkpoint of that shape (bench decode's), written to a temporary folder
              --draft ngram|model prompt lookup (default with --model) or a draft model (default with --preset)
              --draft-model DIR   the draft model; default: the target's first --draft-layers layers (same files, shorter config)
              --prompt copy|story copy (default): a paragraph, then an instruction to repeat it with an edit, then its start;
                                  story: a paragraph to continue (little to look up)
              --later-layers-scale S  with --preset: scale the residual outputs of the layers after the first --draft-layers
                                  by S in [0, 1]; the default draft then agrees with the target more often the smaller S is
                                  (random layers never agree at 1): sets the acceptance a step's cost is measured at
            """;
    private static final String PARAGRAPH = "Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my"
            + " purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part"
            + " of the world. It is a way I have of driving off the spleen and regulating the circulation. Whenever I find myself"
            + " growing grim about the mouth; whenever it is a damp, drizzly November in my soul; whenever I find myself involuntarily"
            + " pausing before coffin warehouses, and bringing up the rear of every funeral I meet; then, I account it high time to get"
            + " to sea as soon as I can.";

    record Options(Optional<Path> model, String preset, String drafter, Optional<Path> draftModel, int draftLayers, OptionalInt draftTokens,
                   int ngramMax, int ngramMin, String prompt, int maxTokens, int repeats, WeightFormat weights, long seed,
                   float laterLayersScale, boolean json) {
        static Options parse(List<String> args) {
            Map<String, String> v = new java.util.HashMap<>();
            boolean json = false;
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (a.equals("--json")) {
                    json = true;
                    continue;
                }
                if (!List.of("--model", "--preset", "--draft", "--draft-model", "--draft-layers", "--num-draft-tokens", "--ngram-max", "--ngram-min", "--prompt",
                        "--max-tokens", "--repeats", "--weights", "--seed", "--later-layers-scale").contains(a)) {
                    throw new IllegalArgumentException("unknown argument '" + a + "'");
                }
                if (i + 1 == args.size()) throw new IllegalArgumentException(a + " needs a value");
                v.put(a, args.get(++i));
            }
            if (v.containsKey("--model") && v.containsKey("--preset")) throw new IllegalArgumentException("give --model or --preset, not both");
            Optional<Path> model = Optional.ofNullable(v.get("--model")).map(Path::of);
            String preset = v.getOrDefault("--preset", "1b");
            if (model.isEmpty()) ModelShape.preset(preset); // checks the name
            String drafter = v.getOrDefault("--draft", model.isPresent() && !v.containsKey("--draft-model") ? "ngram" : "model");
            if (!List.of("ngram", "model").contains(drafter)) throw new IllegalArgumentException("--draft: expected ngram or model, found " + drafter);
            String prompt = v.getOrDefault("--prompt", "copy");
            if (!List.of("copy", "story").contains(prompt)) throw new IllegalArgumentException("--prompt: expected copy or story, found " + prompt);
            Options o = new Options(model, preset, drafter, Optional.ofNullable(v.get("--draft-model")).map(Path::of),
                    positive(v, "--draft-layers", 2), v.containsKey("--num-draft-tokens") ? OptionalInt.of(positive(v, "--num-draft-tokens", 1)) : OptionalInt.empty(),
                    positive(v, "--ngram-max", 3), positive(v, "--ngram-min", 2), prompt, positive(v, "--max-tokens", 128), positive(v, "--repeats", 3),
                    WeightFormat.parse(v.getOrDefault("--weights", "bf16")), Long.parseLong(v.getOrDefault("--seed", "1")),
                    unitFraction(v, "--later-layers-scale"), json);
            if (v.containsKey("--later-layers-scale") && model.isPresent()) {
                throw new IllegalArgumentException("--later-layers-scale shapes a random --preset target; it cannot change --model's weights");
            }
            if (o.drafter.equals("ngram") && o.draftModel.isPresent()) throw new IllegalArgumentException("--draft ngram takes no --draft-model");
            return o;
        }

        private static float unitFraction(Map<String, String> v, String name) {
            String s = v.get(name);
            if (s == null) return 1f;
            try {
                float f = Float.parseFloat(s);
                if (f >= 0 && f <= 1) return f;
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(name + ": expected a number from 0 to 1, found '" + s + "'");
        }

        private static int positive(Map<String, String> v, String name, int fallback) {
            String s = v.get(name);
            if (s == null) return fallback;
            try {
                int n = Integer.parseInt(s);
                if (n >= 1) return n;
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(name + ": expected a positive integer, found '" + s + "'");
        }
    }

    private SpeculativeBench() {
    }

    static int run(List<String> args, PrintWriter out, PrintWriter err) {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(USAGE);
            out.flush();
            return 0;
        }
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("panamax bench speculative: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        Path temp = null;
        try {
            PluginRegistry registry = PluginRegistry.discover(Optional.empty());
            Path target;
            if (o.model().isPresent()) {
                target = o.model().get();
            } else {
                temp = Files.createTempDirectory("panamax-bench-speculative-");
                target = Files.createDirectories(temp.resolve("target"));
                writeRandom(target, ModelShape.preset(o.preset()), o, registry, err);
            }
            Optional<Path> draftDir = Optional.empty();
            if (o.drafter().equals("model")) {
                if (o.draftModel().isPresent()) {
                    draftDir = o.draftModel();
                } else {
                    if (temp == null) temp = Files.createTempDirectory("panamax-bench-speculative-");
                    draftDir = Optional.of(TruncatedDraft.write(target, o.draftLayers(), temp.resolve("draft")));
                }
            }
            return measure(o, registry, target, draftDir, out, err);
        } catch (panamax.api.error.PanamaxException e) {
            err.println("panamax bench speculative: " + e.getMessage());
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println("panamax bench speculative: " + e);
            return 1;
        } finally {
            if (temp != null) deleteRecursively(temp);
        }
    }

    private static int measure(Options o, PluginRegistry registry, Path target, Optional<Path> draftDir, PrintWriter out, PrintWriter err) {
        try (ModelSession session = ModelSession.open(registry, target, KvScheme.identity(), Optional.empty())) {
            SpeculationRequest request = new SpeculationRequest(Optional.of(o.drafter().equals("ngram") ? "ngram" : "draft-model"), draftDir,
                    o.draftTokens(), o.drafter().equals("ngram") ? Map.of("ngram_max", String.valueOf(o.ngramMax()), "ngram_min", String.valueOf(o.ngramMin())) : Map.of());
            SpeculationPlan plan = new SpeculationPlanner(registry).resolve(request).orElseThrow();
            int[] prompt = prompt(session, o);
            GenerationRequest greedy = new GenerationRequest(prompt, SamplingParams.greedy(), o.maxTokens(), session.tokenizer().eosIds());
            err.printf(Locale.ROOT, "target %s (%d layers), prompt %s: %d tokens, %d new tokens greedy, %d repeats%n", target,
                    session.spec().layers().size(), o.prompt(), prompt.length, o.maxTokens(), o.repeats());
            plan.describe().forEach(err::println);
            try (Speculation speculation = Speculation.open(plan, session, registry, err::println)) {
                // warm-up, untimed: both paths over the whole request, in rounds until a round leaves the JIT
                // idle; one 16-token round left the speculative path compiling into the timed repeats (its
                // verification shapes come later than plain decode's: 306 -> 1156 tok/s over five repeats)
                int rounds = 0;
                long warmStart = System.nanoTime();
                long compiled;
                do {
                    compiled = JitActivity.millis();
                    session.generator().generate(greedy, GenerationListener.NONE);
                    session.generator().withSpeculation(speculation).generate(greedy, GenerationListener.NONE);
                    rounds++;
                } while (compiled > 0 && JitActivity.millis() != compiled && rounds < MAX_WARMUP_ROUNDS
                        && System.nanoTime() - warmStart < WARMUP_LIMIT_NANOS);
                err.printf(Locale.ROOT, "warm-up: %d round(s) of both paths, %.1f s%n", rounds, (System.nanoTime() - warmStart) / 1e9);
                double[] plainRates = new double[o.repeats()], fastRates = new double[o.repeats()];
                int[] plainIds = null, fastIds = null;
                SpeculationStats before = speculation.stats().snapshot();
                for (int r = 0; r < o.repeats(); r++) {
                    GenerationOutput plain = session.generator().generate(greedy, GenerationListener.NONE);
                    GenerationOutput fast = session.generator().withSpeculation(speculation).generate(greedy, GenerationListener.NONE);
                    plainRates[r] = plain.stats().decodeTokensPerSecond();
                    fastRates[r] = fast.stats().decodeTokensPerSecond();
                    plainIds = plain.results().getFirst().tokens();
                    fastIds = fast.results().getFirst().tokens();
                    err.printf(Locale.ROOT, "repeat %d: plain %.2f tok/s, speculative %.2f tok/s%n", r + 1, plainRates[r], fastRates[r]);
                }
                SpeculationStats s = speculation.stats().since(before);
                double plainTps = median(plainRates), fastTps = median(fastRates);
                boolean identical = Arrays.equals(plainIds, fastIds);
                String drafter = plan.drafter().id() + (draftDir.isPresent() ? " (" + draftLabel(o, draftDir.get()) + ")" : " (n-grams " + o.ngramMin() + "-" + o.ngramMax() + ")");
                if (o.json()) {
                    ObjectMapper json = new ObjectMapper();
                    ObjectNode root = json.createObjectNode();
                    root.put("target", target.toString());
                    root.put("drafter", drafter);
                    root.put("draft_tokens", plan.draftTokens());
                    root.set("draft_length", json.valueToTree(plan.draftLength().toMap()));
                    if (o.model().isEmpty()) root.put("later_layers_scale", o.laterLayersScale());
                    root.put("prompt", o.prompt());
                    root.put("prompt_tokens", prompt.length);
                    root.put("generated_tokens", o.maxTokens());
                    root.put("plain_tok_s", plainTps);
                    root.put("speculative_tok_s", fastTps);
                    root.put("speedup", fastTps / plainTps);
                    root.put("acceptance", s.acceptanceRate());
                    root.put("tokens_per_step", s.tokensPerRowStep());
                    root.put("identical_output", identical);
                    ArrayNode p = root.putArray("plain_runs");
                    for (double x : plainRates) p.add(x);
                    ArrayNode f = root.putArray("speculative_runs");
                    for (double x : fastRates) f.add(x);
                    out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(root));
                } else {
                    out.println("| decode | drafter | K | acceptance | tokens/step | tok/s (median of " + o.repeats() + ") | vs plain |");
                    out.println("| --- | --- | --- | --- | --- | --- | --- |");
                    out.printf(Locale.ROOT, "| plain greedy | - | - | - | 1.00 | %.2f | 1.00x |%n", plainTps);
                    DraftLength length = plan.draftLength();
                    String k = length.adaptive() ? length.start() + "-" + length.max() + " (adaptive)" : String.valueOf(length.max());
                    out.printf(Locale.ROOT, "| speculative greedy | %s | %s | %.3f | %.2f | %.2f | %.2fx |%n", drafter, k,
                            s.acceptanceRate(), s.tokensPerRowStep(), fastTps, fastTps / plainTps);
                    out.println("outputs identical: " + (identical ? "yes" : "NO"));
                    out.flush();
                }
                if (!identical) {
                    err.println("speculative greedy output differs from plain greedy: plain " + Arrays.toString(plainIds) + ", speculative "
                            + Arrays.toString(fastIds));
                    return 1;
                }
                return 0;
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static String draftLabel(Options o, Path dir) {
        return o.draftModel().isPresent() ? dir.toString() : "the target's first " + o.draftLayers() + " layers";
    }

    /** The prompt's ids: the paragraph, an instruction to repeat it with one edit, and the repeat's first words. */
    private static int[] prompt(ModelSession session, Options o) {
        String text = o.prompt().equals("copy")
                ? PARAGRAPH + "\n\nThe same paragraph again, with \"Ishmael\" changed to \"Queequeg\":\n\nCall me Queequeg. Some years ago,"
                : PARAGRAPH + " ";
        return session.tokenizer().encode(text, true);
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** A random checkpoint as bench decode writes it, plus a word-level tokenizer ({@code t0 … t<vocab-1>}) so it loads as a model directory. */
    private static void writeRandom(Path dir, ModelShape shape, Options o, PluginRegistry registry, PrintWriter err) throws IOException {
        var provider = registry.backends().stream().filter(b -> b.id().equals("java")).findFirst()
                .orElseThrow(() -> new IllegalStateException("the java backend is not installed")).provider();
        long start = System.nanoTime();
        try (Backend backend = provider.create(BackendOptions.defaults())) {
            long bytes = RandomCheckpoint.write(dir, shape, o.weights(), o.seed(), backend, o.draftLayers(), o.laterLayersScale());
            err.printf(Locale.ROOT, "wrote %.2f GB of random %s weights (%s%s) to %s in %.1f s%n", bytes / 1e9, o.weights().label,
                    shape.describe(), o.laterLayersScale() == 1f ? ""
                            : String.format(Locale.ROOT, "; o_proj/down_proj of layers %d+ scaled by %s", o.draftLayers(), o.laterLayersScale()),
                    dir, (System.nanoTime() - start) / 1e9);
        }
        ObjectMapper json = new ObjectMapper();
        ObjectNode tokenizer = json.createObjectNode();
        tokenizer.put("version", "1.0");
        tokenizer.putArray("added_tokens");
        tokenizer.putObject("pre_tokenizer").put("type", "Whitespace");
        ObjectNode model = tokenizer.putObject("model");
        model.put("type", "WordLevel");
        ObjectNode vocab = model.putObject("vocab");
        for (int i = 0; i < shape.vocab(); i++) vocab.put("t" + i, i);
        model.put("unk_token", "t0");
        json.writeValue(dir.resolve("tokenizer.json").toFile(), tokenizer);
    }

    private static void deleteRecursively(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    // best effort: a leftover temporary file is not worth failing the benchmark
                }
            });
        } catch (IOException e) {
            // same
        }
    }
}
