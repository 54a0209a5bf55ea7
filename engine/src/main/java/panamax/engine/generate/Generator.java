package panamax.engine.generate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import panamax.api.kv.KvLayout;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.Tokenizer;
import panamax.api.tensor.Backend;

/**
 * The autoregressive loop: prefills prompts in chunks (projecting only the last position's logits),
 * then decodes one token per row per step until every row hits an EOS id, a stop string or its
 * token limit. Several prompts run as one batch: shorter prompts are left-padded (through the
 * layouts' {@link KvLayout#preparePrefill} / {@link KvLayout#finalizePrefill}) and finished rows are
 * dropped from the cache with {@link KvLayout#filterRows}. Holds no per-call state; one call at a
 * time per backend is the caller's concern. Borrows the graph, backend and tokenizer.
 *
 * {@snippet :
 * Generator generator = new Generator(model.graph(), backend, (rows, context) -> openCache(rows, context), tokenizer, 512);
 * GenerationOutput out = generator.generate(List.of(new GenerationRequest(ids, SamplingParams.greedy(), 64,
 *         tokenizer.eosIds())), GenerationListener.NONE);
 * }
 */
public final class Generator {
    private final ForwardPass forward;
    private final Backend backend;
    private final KvSessionFactory caches;
    private final Tokenizer tokenizer;
    private final int prefillChunk;
    private final panamax.engine.speculative.Speculation speculation; // null: one token per row and step

    /**
     * @param tokenizer    turns ids into text and stop strings into matches, or null to generate ids only
     * @param prefillChunk prompt columns per forward pass during prefill (bounds activation memory)
     */
    public Generator(AutoregressiveGraph graph, Backend backend, KvSessionFactory caches, Tokenizer tokenizer, int prefillChunk) {
        if (prefillChunk < 1) throw new IllegalArgumentException("prefill chunk must be at least 1 token, found " + prefillChunk);
        this.forward = new ForwardPass(graph, backend);
        this.backend = backend;
        this.caches = caches;
        this.tokenizer = tokenizer;
        this.prefillChunk = prefillChunk;
        this.speculation = null;
    }

    private Generator(Generator plain, panamax.engine.speculative.Speculation speculation) {
        this.forward = plain.forward;
        this.backend = plain.backend;
        this.caches = plain.caches;
        this.tokenizer = plain.tokenizer;
        this.prefillChunk = plain.prefillChunk;
        this.speculation = speculation;
    }

    /**
     * This generator decoding speculatively: each step verifies the drafts of {@code speculation}'s
     * drafter in one forward pass (borrowed; greedy output stays the same, sampling keeps the
     * target's distribution).
     */
    public Generator withSpeculation(panamax.engine.speculative.Speculation speculation) {
        return new Generator(this, java.util.Objects.requireNonNull(speculation, "speculation"));
    }

    /** Generates for one request. */
    public GenerationOutput generate(GenerationRequest request, GenerationListener listener) {
        return generate(List.of(request), listener);
    }

    /** Generates for every request as one batch; results come back in request order. */
    public GenerationOutput generate(List<GenerationRequest> requests, GenerationListener listener) {
        if (requests.isEmpty()) throw new IllegalArgumentException("no requests to generate for");
        int width = 0, maxNew = 0;
        for (GenerationRequest r : requests) {
            width = Math.max(width, r.promptIds().length);
            maxNew = Math.max(maxNew, r.maxTokens());
        }
        try (KvSession kv = caches.open(requests.size(), width + maxNew)) {
            return run(kv, requests, 0, listener);
        }
    }

    /** A new KV cache from this generator's factory, owned by the caller. */
    KvSession open(int rows, int contextTokens) {
        return caches.open(rows, contextTokens);
    }

    /**
     * Generates on {@code kv}, which already holds the first {@code cached} prompt tokens of the
     * single request (0 for an empty cache of {@code requests.size()} rows). Leaves the prompt and
     * every generated token but the last in the cache.
     */
    GenerationOutput run(KvSession kv, List<GenerationRequest> requests, int cached, GenerationListener listener) {
        int rows = requests.size();
        if (cached > 0 && (rows != 1 || cached >= requests.getFirst().promptIds().length)) {
            throw new IllegalArgumentException("a cached prefix needs one request with at least one new prompt token");
        }
        int[][] prompts = new int[rows][];
        int width = 0, promptTokens = 0;
        for (int r = 0; r < rows; r++) {
            int[] ids = requests.get(r).promptIds();
            prompts[r] = java.util.Arrays.copyOfRange(ids, cached, ids.length);
            width = Math.max(width, prompts[r].length);
            promptTokens += ids.length;
        }
        List<RowState> states = new ArrayList<>(rows);
        for (int r = 0; r < rows; r++) states.add(new RowState(r, requests.get(r), tokenizer));

        backend.resetPeakMemory();
        long start = System.nanoTime();
        Set<KvLayout> layouts = distinctLayouts(kv);
        float[] logits = prefill(kv, layouts, prompts, width, listener);
        long prefillEnd = System.nanoTime();
        int columns = cached + width;
        long peakKv = kvBytes(layouts, columns);
        int vocab = logits.length / rows;
        List<RowState> active = new ArrayList<>(states);
        for (int i = 0; i < active.size(); i++) active.get(i).step(logits, i * vocab, vocab, listener);
        SpeculativeRows speculative = speculation == null ? null : new SpeculativeRows(speculation, forward, states, listener);
        while (true) {
            int[] keep = stillActive(active);
            if (keep.length == 0) break;
            if (keep.length < active.size()) {
                for (KvLayout layout : layouts) layout.filterRows(keep);
                List<RowState> kept = new ArrayList<>(keep.length);
                for (int k : keep) kept.add(active.get(k));
                active = kept;
            }
            if (speculative != null) {
                speculative.step(kv, layouts, active);
                columns = width(kv);
            } else {
                int[] next = new int[active.size()];
                for (int i = 0; i < next.length; i++) next[i] = active.get(i).lastToken();
                logits = forward.run(kv, next, next.length, 1, true);
                vocab = logits.length / active.size();
                for (int i = 0; i < active.size(); i++) active.get(i).step(logits, i * vocab, vocab, listener);
                columns++;
            }
            peakKv = Math.max(peakKv, kvBytes(layouts, columns));
        }
        long end = System.nanoTime();
        int generated = 0;
        List<GenerationResult> results = new ArrayList<>(rows);
        for (RowState s : states) {
            generated += s.generated();
            results.add(s.result());
        }
        GenerationStats stats = new GenerationStats(promptTokens, cached, generated, (prefillEnd - start) / 1e9,
                (end - prefillEnd) / 1e9, peakKv, backend.memoryStats().peakBytes(), rows);
        return new GenerationOutput(results, stats);
    }

    /** Runs the left-padded prompts through the model in chunks; returns the last column's logits {@code [rows * vocab]}. */
    private float[] prefill(KvSession kv, Set<KvLayout> layouts, int[][] prompts, int width, GenerationListener listener) {
        LeftPaddedPrompts padded = LeftPaddedPrompts.of(prompts);
        int rows = padded.rows();
        // planned even without padding: a bounded layout then takes every chunk, a last one of one column included, in
        // time order, so a prompt cut into chunks attends over its keys as in one pass
        for (KvLayout layout : layouts) layout.preparePrefill(padded.lengths(), padded.left(), new int[rows]);
        float[] logits = null;
        for (int from = 0; from < width; from += prefillChunk) {
            int n = Math.min(prefillChunk, width - from);
            logits = forward.run(kv, padded.columns(from, n), rows, n, from + n == width);
            listener.onPrefill(from + n, width);
        }
        for (KvLayout layout : layouts) layout.finalizePrefill();
        return logits;
    }

    /** Columns the widest row spans (left padding plus tokens), as layer 0 sees it. */
    private static int width(KvSession kv) {
        int[] offsets = kv.layer(0).offsets(), left = kv.layer(0).leftPadding();
        int w = 0;
        for (int r = 0; r < offsets.length; r++) w = Math.max(w, offsets[r] + left[r]);
        return w;
    }

    private static int[] stillActive(List<RowState> active) {
        int[] keep = new int[active.size()];
        int n = 0;
        for (int i = 0; i < active.size(); i++) if (!active.get(i).finished()) keep[n++] = i;
        return java.util.Arrays.copyOf(keep, n);
    }

    /** Each layout once: layers that read a donor's cache share its instance. */
    private static Set<KvLayout> distinctLayouts(KvSession kv) {
        Set<KvLayout> layouts = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < kv.layers(); i++) layouts.add(kv.layer(i));
        return layouts;
    }

    private static long kvBytes(Set<KvLayout> layouts, int columns) {
        long total = 0;
        for (KvLayout layout : layouts) total += layout.projectedBytes(columns);
        return total;
    }
}
