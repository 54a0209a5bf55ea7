package panamax.engine.serve;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import panamax.engine.runtime.LayerCaches;

/**
 * Finished rows' KV kept for later requests, keyed by the token ids it holds and bounded in bytes
 * (least recently used first out). A lookup hands out a trimmed copy, so one cached row can start
 * several requests. Owned by the scheduler thread; not thread-safe.
 */
final class ServingPrefixCache implements AutoCloseable {
    /** A cached row: the ids whose keys and values {@code caches} holds (one row). */
    private record Entry(int[] ids, LayerCaches caches, long bytes) {
    }

    /** A copy of a cached row cut back to the prompt's shared prefix; the caller owns {@code caches}. */
    record Hit(LayerCaches caches, int tokens) {
    }

    /** What a lookup found: a hit, or why there is none. */
    record Lookup(Hit hit, String reason) {
    }

    private final long capacity;
    private final LinkedHashMap<Long, Entry> entries = new LinkedHashMap<>(16, 0.75f, true); // access order: eldest first
    private long bytes;
    private long next;

    ServingPrefixCache(long capacity) {
        this.capacity = capacity;
    }

    /**
     * The cached row sharing the longest prefix with {@code prompt}, copied and trimmed to that
     * prefix; at least one prompt token is left to prefill (its logits start the generation).
     */
    Lookup lookup(int[] prompt) {
        Map.Entry<Long, Entry> best = null;
        int bestLength = 0;
        for (Map.Entry<Long, Entry> e : entries.entrySet()) {
            int n = Math.min(commonPrefix(e.getValue().ids(), prompt), prompt.length - 1);
            if (n > bestLength) {
                best = e;
                bestLength = n;
            }
        }
        if (best == null) return new Lookup(null, entries.isEmpty() ? "the prefix cache is empty" : "no cached row shares a prefix");
        Entry entry = entries.get(best.getKey()); // touch: most recently used
        LayerCaches copy = entry.caches().extractRow(0);
        if (!copy.trim(entry.ids().length - bestLength)) {
            copy.close();
            return new Lookup(null, "the cached row sharing " + bestLength + " tokens cannot be trimmed to them (a rotating window"
                    + " that wrapped); prefilled in full");
        }
        return new Lookup(new Hit(copy, bestLength), "reused " + bestLength + " cached tokens");
    }

    /** The most prompt tokens a lookup could reuse, without copying anything. */
    int sharedPrefix(int[] prompt) {
        int best = 0;
        for (Entry e : entries.values()) best = Math.max(best, Math.min(commonPrefix(e.ids(), prompt), prompt.length - 1));
        return best;
    }

    /**
     * Keeps {@code caches} (one row holding {@code ids}); takes ownership. Entries whose ids it
     * extends are dropped as redundant; the oldest go until the bytes fit.
     */
    void put(int[] ids, LayerCaches caches) {
        long size = caches.projectedBytes(ids.length);
        if (ids.length == 0 || size > capacity) {
            caches.close();
            return;
        }
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.ids().length <= ids.length && commonPrefix(e.ids(), ids) == e.ids().length) {
                it.remove();
                release(e);
            }
        }
        entries.put(next++, new Entry(ids.clone(), caches, size));
        bytes += size;
        while (bytes > capacity) evictOldest();
    }

    /** Drops the least recently used row; false when empty. */
    boolean evictOldest() {
        Iterator<Entry> it = entries.values().iterator();
        if (!it.hasNext()) return false;
        Entry e = it.next();
        it.remove();
        release(e);
        return true;
    }

    long bytes() {
        return bytes;
    }

    int size() {
        return entries.size();
    }

    private void release(Entry e) {
        bytes -= e.bytes();
        e.caches().close();
    }

    private static int commonPrefix(int[] a, int[] b) {
        int n = Math.min(a.length, b.length);
        int i = 0;
        while (i < n && a[i] == b[i]) i++;
        return i;
    }

    @Override
    public void close() {
        while (evictOldest()) {
            // each eviction closes one row's caches
        }
    }
}
