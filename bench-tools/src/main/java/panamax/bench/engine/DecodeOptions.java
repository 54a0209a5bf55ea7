package panamax.bench.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import panamax.api.model.LoadOptions;
import panamax.api.plan.KvScheme;
import panamax.engine.plan.KvSchemeFlags;

/**
 * The command line of {@code panamax bench decode}, parsed and checked. Immutable.
 *
 * @param shape         the model's dimensions (a preset with overrides)
 * @param presetName    the preset the shape started from, or the model directory's name with {@code --model}
 * @param weights       weight formats to run, in order
 * @param batches       decode batch sizes
 * @param context       tokens in each row's cache before decode is timed
 * @param steps         timed decode steps per batch
 * @param warmup        untimed decode steps before them, at least (more while the JIT still compiles)
 * @param prefillTokens tokens of the timed batch-1 prefill (0 skips it)
 * @param realPrefill   fill each decode batch's context by prefilling it through the model (else random keys/values)
 * @param kv            the KV scheme, from the KV flags of {@code panamax generate} ({@link KvSchemeFlags})
 * @param threads       threads of the bandwidth and FMA probes
 * @param probeBytes    bytes the bandwidth probe reads per pass
 * @param json          one JSON object per line instead of the table
 * @param seed          seed of weights, ids and keys/values
 * @param tmp           the folder the temporary checkpoints go under
 * @param breakdown     also time each backend op of the decode steps (a second, instrumented run per batch)
 * @param memories      where the loaded weights live, each measured in turn (mapped file pages, copied into huge pages, or auto: as panamax generate chooses)
 * @param backend       the backend id to measure ({@code --backend}, default {@code java})
 * @param model         a model directory to measure instead of random weights ({@code --model}); its
 *                      config gives the shape and its quantization the one weight format
 * @param kvBaseline    the identity cache to measure beside {@link #kv} for the KV comparison rows, or
 *                      empty ({@code --kv-baseline none}, or when kv is the identity cache itself)
 * @param save          where to keep the random checkpoints ({@code --save DIR}: one folder per format, named
 *                      {@link #savedCheckpoint}), so a later run, or another engine, reads the same weights; empty: they
 *                      go under {@link #tmp} and are deleted
 */
record DecodeOptions(ModelShape shape, String presetName, List<WeightFormat> weights, List<Integer> batches, int context,
                     int steps, int warmup, int prefillTokens, boolean realPrefill, KvScheme kv, int threads,
                     long probeBytes, boolean json, long seed, Path tmp, boolean breakdown,
                     List<LoadOptions.Weights> memories, String backend, Optional<Path> model, Optional<KvScheme> kvBaseline,
                     Optional<Path> save) {

    static final String USAGE = """
            usage: panamax bench decode [--preset 1b|125m|tiny|moe|moe-tiny] [--layers N --hidden N --heads N --kv-heads N
                   --head-dim N --intermediate N --vocab N --experts N --top-k K] [--weights bf16,q8,q4 (also q6, q5, q3, q2)] [--model DIR] [--batches 1,4,8] [--context 512]
                   [--steps 16] [--warmup 3] [--prefill-tokens 512] [--fill random|prefill] [--threads N] [--probe-mib 1024]
                   [--seed S] [--tmp DIR] [--save DIR] [--json] [--breakdown] [--weights-memory auto|map|copy[,...]] [--backend java|mlx|ID]
                   [KV flags, as for panamax generate: %s]
                   [--kv-baseline identity|none]  (identity, the default with a KV scheme other than identity: also decodes
                   with the identity cache, batch by batch, and prints the scheme's rate against it, target >= 1.00x)
            """.formatted(KvSchemeFlags.USAGE);

    /** @throws IllegalArgumentException naming the flag, what was expected and what was found */
    static DecodeOptions parse(List<String> args) {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> kvFlags = new ArrayList<>();
        boolean json = false, breakdown = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--json") || a.equals("--breakdown")) {
                json |= a.equals("--json");
                breakdown |= a.equals("--breakdown");
                continue;
            }
            boolean kv = KvSchemeFlags.isKvFlag(a);
            if (!kv && !KNOWN.contains(a)) throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
            if (i + 1 >= args.size()) throw new IllegalArgumentException(a + ": expected a value, found the end of the arguments");
            if (kv) {
                kvFlags.add(a);
                kvFlags.add(args.get(++i));
            } else {
                values.put(a, args.get(++i));
            }
        }
        KvScheme kv = KvSchemeFlags.parse(kvFlags).scheme();
        if (values.containsKey("--model")) return withModel(values, kv, json, breakdown);
        String preset = values.getOrDefault("--preset", "1b");
        ModelShape p = ModelShape.preset(preset);
        ModelShape shape = new ModelShape(intOr(values, "--layers", p.layers()), intOr(values, "--hidden", p.hidden()),
                intOr(values, "--heads", p.heads()), intOr(values, "--kv-heads", p.kvHeads()),
                intOr(values, "--head-dim", p.headDim()), intOr(values, "--intermediate", p.intermediate()),
                intOr(values, "--vocab", p.vocab()), nonNegative(values, "--experts", p.experts()), nonNegative(values, "--top-k", p.topK()));
        for (int dim : new int[] {shape.hidden(), shape.qOut(), shape.intermediate()}) {
            if (dim % WeightFormat.GROUP_SIZE != 0) {
                throw new IllegalArgumentException("--hidden/--heads/--head-dim/--intermediate: quantized weights need input"
                        + " widths divisible by the group size " + WeightFormat.GROUP_SIZE + ", found " + dim);
            }
        }
        List<WeightFormat> weights = new ArrayList<>();
        for (String w : values.getOrDefault("--weights", "bf16,q8,q4").split(",")) weights.add(WeightFormat.parse(w));
        return common(values, shape, preset, weights, kv, json, breakdown, Optional.empty());
    }

    /** {@code --model DIR}: the directory's own shape and weight format; shape and format flags do not apply. */
    private static DecodeOptions withModel(Map<String, String> values, KvScheme kv, boolean json, boolean breakdown) {
        for (String flag : List.of("--preset", "--layers", "--hidden", "--heads", "--kv-heads", "--head-dim", "--intermediate",
                "--vocab", "--experts", "--top-k", "--weights")) {
            if (values.containsKey(flag)) throw new IllegalArgumentException(flag + ": not with --model (the model's config.json decides)");
        }
        if (values.containsKey("--save")) throw new IllegalArgumentException("--save: not with --model (it keeps the random checkpoints a preset writes)");
        Path dir = Path.of(values.get("--model"));
        ModelConfigShape read = ModelConfigShape.read(dir);
        return common(values, read.shape(), dir.toAbsolutePath().normalize().getFileName().toString(), List.of(read.format()),
                kv, json, breakdown, Optional.of(dir));
    }

    private static DecodeOptions common(Map<String, String> values, ModelShape shape, String name, List<WeightFormat> weights,
                                        KvScheme kv, boolean json, boolean breakdown, Optional<Path> model) {
        List<Integer> batches = new ArrayList<>();
        for (String b : values.getOrDefault("--batches", "1,4,8").split(",")) batches.add(positive("--batches", b));
        String fill = values.getOrDefault("--fill", "random");
        if (!fill.equals("random") && !fill.equals("prefill")) {
            throw new IllegalArgumentException("--fill: expected random or prefill, found " + fill);
        }
        int threads = intOr(values, "--threads", Runtime.getRuntime().availableProcessors());
        long probeMib = intOr(values, "--probe-mib", 1024);
        String baseline = values.getOrDefault("--kv-baseline", "identity");
        if (!baseline.equals("identity") && !baseline.equals("none")) {
            throw new IllegalArgumentException("--kv-baseline: expected identity or none, found " + baseline);
        }
        // the same window, so a rotating scheme is compared with a rotating identity cache
        Optional<KvScheme> kvBaseline = baseline.equals("none") || kv.codec().equals("identity") ? Optional.empty() : Optional.of(identityLike(kv));
        DecodeOptions o = new DecodeOptions(shape, name, List.copyOf(weights), List.copyOf(batches), intOr(values, "--context", 512),
                intOr(values, "--steps", 16), nonNegative(values, "--warmup", 3), nonNegative(values, "--prefill-tokens", 512),
                fill.equals("prefill"), kv, threads, probeMib << 20, json,
                Long.parseLong(values.getOrDefault("--seed", "42")),
                Path.of(values.getOrDefault("--tmp", System.getProperty("java.io.tmpdir"))), breakdown, memories(values),
                values.getOrDefault("--backend", "java"), model, kvBaseline, Optional.ofNullable(values.get("--save")).map(Path::of));
        for (WeightFormat f : o.weights) {
            // a kept checkpoint is never overwritten; say so before minutes of probing and writing
            o.savedCheckpoint(f).filter(Files::exists).ifPresent(target -> {
                throw new IllegalArgumentException("--save: " + target + " already exists; remove it, or measure it with --model " + target);
            });
        }
        return o;
    }

    /** The folder {@code --save} keeps format f's checkpoint in: {@code DIR/<preset>-<format>}, e.g. {@code moe-q8}. */
    Optional<Path> savedCheckpoint(WeightFormat f) {
        return save.map(dir -> dir.resolve(presetName + "-" + f.label));
    }

    /** The identity cache with the scheme's window ({@code --max-kv-size}), planner-chosen layout. */
    private static KvScheme identityLike(KvScheme kv) {
        return new KvScheme("identity", java.util.Map.of(), java.util.OptionalInt.empty(), kv.maxKvSize(), Optional.empty());
    }

    private static final java.util.Set<String> KNOWN = java.util.Set.of("--preset", "--layers", "--hidden", "--heads",
            "--kv-heads", "--head-dim", "--intermediate", "--vocab", "--weights", "--batches", "--context", "--steps", "--warmup",
            "--prefill-tokens", "--fill", "--threads", "--probe-mib", "--seed", "--tmp", "--save",
            "--weights-memory", "--backend", "--model", "--experts", "--top-k", "--kv-baseline");

    private static List<LoadOptions.Weights> memories(Map<String, String> values) {
        List<LoadOptions.Weights> out = new ArrayList<>();
        for (String m : values.getOrDefault("--weights-memory", "auto").split(",")) {
            switch (m.trim()) {
                case "auto" -> out.add(LoadOptions.Weights.AUTO);
                case "map" -> out.add(LoadOptions.Weights.MAP);
                case "copy" -> out.add(LoadOptions.Weights.COPY);
                default -> throw new IllegalArgumentException("--weights-memory: expected auto, map, copy or a list (map,copy), found '" + m + "'");
            }
        }
        return List.copyOf(out);
    }

    private static int intOr(Map<String, String> values, String flag, int fallback) {
        return values.containsKey(flag) ? positive(flag, values.get(flag)) : fallback;
    }

    private static int nonNegative(Map<String, String> values, String flag, int fallback) {
        if (!values.containsKey(flag)) return fallback;
        int v = parseInt(flag, values.get(flag));
        if (v < 0) throw new IllegalArgumentException(flag + ": expected a non-negative integer, found " + v);
        return v;
    }

    private static int positive(String flag, String text) {
        int v = parseInt(flag, text);
        if (v <= 0) throw new IllegalArgumentException(flag + ": expected a positive integer, found " + v);
        return v;
    }

    private static int parseInt(String flag, String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + ": expected an integer, found '" + text + "'");
        }
    }
}
