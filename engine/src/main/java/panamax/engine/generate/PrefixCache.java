package panamax.engine.generate;

import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import panamax.api.kv.KvLayout;

/**
 * Generates for one row at a time on a KV cache kept between calls, so a prompt that extends an
 * earlier one (the next turn of a chat) only prefills its new tokens. Each call reuses the longest
 * common prefix of token ids: the cache is trimmed back to it when the new prompt diverges, and
 * rebuilt from scratch when a layout cannot trim that far (a rotating layout after it wrapped).
 * Owns its cache; not thread-safe.
 *
 * {@snippet :
 * try (PrefixCache cache = new PrefixCache(generator, 0)) {
 *     cache.generate(firstTurn, listener);
 *     cache.generate(secondTurn, listener);   // prefills only what the first turn's cache lacks
 * }
 * }
 */
public final class PrefixCache implements AutoCloseable {
    private final Generator generator;
    private final int contextTokens;
    private KvSession kv;
    /** The ids whose keys and values the cache holds, in order. */
    private int[] cached = new int[0];

    /**
     * @param contextTokens the context to plan the cache for; 0 plans for the model's maximum
     */
    public PrefixCache(Generator generator, int contextTokens) {
        this.generator = generator;
        this.contextTokens = contextTokens;
    }

    /** Generates for {@code request}, reusing what the cache holds of its prompt. */
    public GenerationOutput generate(GenerationRequest request, GenerationListener listener) {
        int[] prompt = request.promptIds();
        // At least one prompt token must run through the model to give the first logits.
        int reuse = Math.min(commonPrefix(cached, prompt), prompt.length - 1);
        if (kv != null && reuse < cached.length && !trim(cached.length - reuse)) reset();
        if (kv == null) {
            kv = generator.open(1, contextTokens);
            reuse = 0;
        }
        GenerationOutput out;
        try {
            out = generator.run(kv, java.util.List.of(request), reuse, listener);
        } catch (RuntimeException e) {
            reset(); // the cache may hold part of a prefill
            throw e;
        }
        // The cache now holds the prompt and every generated token but the last, never fed back.
        int[] generated = out.results().getFirst().tokens();
        cached = Arrays.copyOf(prompt, prompt.length + generated.length - 1);
        System.arraycopy(generated, 0, cached, prompt.length, generated.length - 1);
        return out;
    }

    /** Number of token ids the cache holds. */
    public int cachedTokens() {
        return cached.length;
    }

    private boolean trim(int n) {
        Set<KvLayout> layouts = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < kv.layers(); i++) layouts.add(kv.layer(i));
        for (KvLayout layout : layouts) if (!layout.isTrimmable()) return false;
        for (KvLayout layout : layouts) if (layout.trim(n) != n) return false;
        cached = Arrays.copyOf(cached, cached.length - n);
        return true;
    }

    private void reset() {
        if (kv != null) kv.close();
        kv = null;
        cached = new int[0];
    }

    private static int commonPrefix(int[] a, int[] b) {
        int n = Math.min(a.length, b.length);
        int i = 0;
        while (i < n && a[i] == b[i]) i++;
        return i;
    }

    @Override
    public void close() {
        reset();
    }
}
