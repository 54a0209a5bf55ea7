package panamax.engine.serve;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import panamax.api.plan.Batching;
import panamax.engine.generate.ForwardPass;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.runtime.LayerCaches;
import panamax.engine.speculative.Speculation;
import panamax.engine.speculative.SpeculationPlanner;
import panamax.engine.speculative.SpeculativeDecoder;
import panamax.engine.serve.RequestRejectedException.Kind;

/**
 * Continuous batching over one model. One scheduler thread owns the model's KV: every step it
 * admits waiting requests whose projected KV fits the budget (a cohort of fresh prompts, or one
 * prompt starting from a prefix-cache hit), prefills the cohort one chunk, then decodes one token
 * for every running row. A prefilled cohort is merged into the running batch
 * ({@link LayerCaches#mergeIn}); finished and cancelled rows leave it in the same step
 * ({@link LayerCaches#filterRows}), and a finished row's KV goes to the prefix cache
 * ({@link LayerCaches#extractRow}). Callers on any thread only {@link #submit} and receive their
 * row's events; nothing else is shared.
 *
 * {@snippet :
 * try (BatchScheduler scheduler = BatchScheduler.start(session, plan, SchedulerObserver.NONE)) {
 *     Ticket ticket = scheduler.submit(new ServeRequest(request, -1, events));
 * }
 * }
 */
public final class BatchScheduler implements AutoCloseable {
    private record Pending(ServeRequest request, Ticket ticket, long submitted) {
        int[] prompt() {
            return request.generation().promptIds();
        }
    }

    private final ModelSession session;
    private final ServingPlan plan;
    private final SchedulerObserver observer;
    private final ForwardPass forward;
    private final ServingPrefixCache prefixCache;
    private final Thread thread;
    private final Speculation speculation;  // null: one token per row and step
    private final SpeculativeDecoder speculative;
    private final PrefillPacer pacer;

    private final Object lock = new Object();
    // guarded by lock
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private boolean accepting = true;
    private boolean stopping;
    private boolean busy;
    private long nextTicket;
    private SchedulerStats stats;

    // scheduler thread only
    private LayerCaches running;
    private final List<ServingRow> rows = new ArrayList<>();
    private PrefillCohort cohort;
    private long steps;
    private long prefillNanos, decodeNanos;

    private BatchScheduler(ModelSession session, ServingPlan plan, SchedulerObserver observer, Speculation speculation) {
        this.speculation = speculation;
        this.speculative = speculation == null ? null : speculation.decoder(new ForwardPass(session.graph(), session.backend()));
        this.session = session;
        this.plan = plan;
        this.observer = observer;
        this.forward = new ForwardPass(session.graph(), session.backend());
        this.prefixCache = new ServingPrefixCache(plan.prefixReuse() ? plan.config().prefixCacheBytes() : 0);
        this.pacer = new PrefillPacer(plan.config().prefillChunk(), plan.config().prefillStepMillis());
        this.stats = new SchedulerStats(0, 0, 0, 0, 0, plan.config().memoryBudget(), 0, 0, 0);
        this.thread = Thread.ofPlatform().name("panamax-scheduler").daemon().unstarted(this::loop);
    }

    /** Starts a scheduler over {@code session} (borrowed: close the scheduler first) under {@code plan}. */
    public static BatchScheduler start(ModelSession session, ServingPlan plan, SchedulerObserver observer) {
        return start(session, plan, observer, null);
    }

    /**
     * As {@link #start(ModelSession, ServingPlan, SchedulerObserver)}, decoding speculatively with
     * {@code speculation} (borrowed: close the scheduler first; null for none): every step verifies
     * the drafts of all speculating rows in one forward pass and rolls each row back to what it accepted.
     */
    public static BatchScheduler start(ModelSession session, ServingPlan plan, SchedulerObserver observer, Speculation speculation) {
        BatchScheduler scheduler = new BatchScheduler(session, plan, observer, speculation);
        scheduler.thread.start();
        return scheduler;
    }

    /** The speculation this scheduler decodes with, if any. */
    public java.util.Optional<Speculation> speculation() {
        return java.util.Optional.ofNullable(speculation);
    }

    public ServingPlan plan() {
        return plan;
    }

    /** The state after the latest step. Thread-safe. */
    public SchedulerStats stats() {
        synchronized (lock) {
            return stats;
        }
    }

    /**
     * Queues a request. Thread-safe; its events arrive on the scheduler thread.
     *
     * @throws RequestRejectedException INVALID when its prompt and max tokens exceed the model's
     *         context or alone need more KV than the budget; BUSY when the queue is full;
     *         UNAVAILABLE after {@link #drain} began
     */
    public Ticket submit(ServeRequest request) {
        GenerationRequest g = request.generation();
        int prompt = g.promptIds().length;
        long total = (long) prompt + g.maxTokens();
        int context = session.spec().maxPositions();
        if (context > 0 && total > context) {
            throw new RequestRejectedException(Kind.INVALID, "max_tokens", "this model's context is " + context + " tokens; the prompt's "
                    + prompt + " tokens + max_tokens " + g.maxTokens() + " = " + total + " exceed it");
        }
        long alone = session.plan(1, total).projectedKvBytes();
        if (alone > plan.config().memoryBudget()) {
            throw new RequestRejectedException(Kind.INVALID, "max_tokens", "the prompt's " + prompt + " tokens + max_tokens " + g.maxTokens()
                    + " need " + alone + " bytes of KV cache, more than the whole KV memory budget of "
                    + plan.config().memoryBudget() + " bytes");
        }
        Ticket ticket;
        synchronized (lock) {
            if (!accepting) throw new RequestRejectedException(Kind.UNAVAILABLE, null, "the scheduler is shutting down");
            if (queue.size() >= plan.config().maxQueue()) {
                throw new RequestRejectedException(Kind.BUSY, null, "the queue already holds " + queue.size()
                        + " waiting requests, its limit; retry later");
            }
            ticket = new Ticket(nextTicket++);
            queue.add(new Pending(request, ticket, System.nanoTime()));
            lock.notifyAll();
        }
        observer.queued();
        return ticket;
    }

    /**
     * Stops taking requests and lets the queued and running ones finish for up to {@code grace};
     * then ends the rest with {@link RowEvents#onError} and stops the scheduler thread.
     *
     * @return whether every request finished within the grace period
     */
    public boolean drain(Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        boolean idle;
        synchronized (lock) {
            accepting = false;
            lock.notifyAll();
            while (!(idle = queue.isEmpty() && !busy)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) break;
                lock.wait(Math.max(1, left / 1_000_000));
            }
            stopping = true;
            lock.notifyAll();
        }
        thread.join();
        return idle;
    }

    /** {@link #drain} with no grace: every unfinished request ends with an error. */
    @Override
    public void close() {
        try {
            drain(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        try {
            while (true) {
                synchronized (lock) {
                    while (!stopping && queue.isEmpty() && rows.isEmpty() && cohort == null) lock.wait();
                    if (stopping) break;
                }
                try {
                    dropCancelledWaiting();
                    if (cohort == null) cohort = admit();
                    long t0 = System.nanoTime();
                    if (cohort != null) {
                        for (ServingRow row : rows) row.idle(); // their readers get what they hold before the chunk
                        prefillStep();
                    }
                    long t1 = System.nanoTime();
                    if (!rows.isEmpty()) decodeStep();
                    prefillNanos += t1 - t0;
                    decodeNanos += System.nanoTime() - t1;
                } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
                    failAll(e instanceof RuntimeException r ? r : new IllegalStateException("generation step failed: " + e, e));
                }
                publish();
                if (cohort == null && rows.isEmpty()) waitBriefly(); // a queue head that cannot start yet must not spin
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            failAll(new RequestRejectedException(Kind.UNAVAILABLE, null, "the scheduler shut down before the request finished"));
            List<Pending> left;
            synchronized (lock) {
                left = new ArrayList<>(queue);
                queue.clear();
            }
            for (Pending p : left) {
                if (!p.ticket().cancelled()) {
                    p.request().events().onError(new RequestRejectedException(Kind.UNAVAILABLE, null, "the scheduler shut down before the request started"));
                }
            }
            prefixCache.close();
            publish();
        }
    }

    private void waitBriefly() throws InterruptedException {
        synchronized (lock) {
            if (!stopping && !queue.isEmpty()) lock.wait(5);
        }
    }

    private void dropCancelledWaiting() {
        List<Pending> dropped = new ArrayList<>();
        synchronized (lock) {
            queue.removeIf(p -> p.ticket().cancelled() && dropped.add(p));
        }
        for (Pending p : dropped) observer.finished("cancelled", 0, (System.nanoTime() - p.submitted()) / 1e9);
    }

    /** A cohort from the head of the queue that fits the batch and the budget, or null. */
    private PrefillCohort admit() {
        List<Pending> waiting;
        synchronized (lock) {
            if (queue.isEmpty()) return null;
            waiting = new ArrayList<>(queue);
        }
        int capacity = plan.batching() == Batching.SERIAL ? (rows.isEmpty() ? 1 : 0) : plan.config().maxBatch() - rows.size();
        if (capacity <= 0) return null;
        Pending head = waiting.getFirst();
        List<Pending> joining = new ArrayList<>(List.of(head));
        // Room first: a head that must wait would otherwise copy its cached prefix every step for nothing.
        if (!makeRoom(joining)) return null;
        ServingPrefixCache.Lookup lookup = plan.prefixReuse() ? prefixCache.lookup(head.prompt())
                : new ServingPrefixCache.Lookup(null, "prefix reuse is off: " + plan.prefixReuseReason());
        if (lookup.hit() != null) {
            take(1);
            ServingRow row = admitted(head, lookup.hit().tokens(), lookup.reason());
            return new PrefillCohort(lookup.hit().caches(), List.of(row), lookup.hit().tokens());
        }
        for (Pending next : waiting.subList(1, waiting.size())) {
            if (joining.size() == capacity || next.ticket().cancelled()) break;
            if (plan.prefixReuse() && prefixCache.sharedPrefix(next.prompt()) > 0) break; // starts from its hit next step
            joining.add(next);
            if (!makeRoom(joining)) {
                joining.removeLast();
                break;
            }
        }
        take(joining.size());
        List<ServingRow> admitted = new ArrayList<>();
        long context = 0;
        for (Pending p : joining) {
            admitted.add(admitted(p, 0, lookup.reason()));
            context = Math.max(context, (long) p.prompt().length + p.request().generation().maxTokens());
        }
        return new PrefillCohort(session.openCaches(joining.size(), context), admitted, 0);
    }

    private ServingRow admitted(Pending p, int cached, String prefixReason) {
        RequestPlan requestPlan;
        if (speculation == null) {
            requestPlan = new RequestPlan(plan.batching(), plan.batchingReason(), cached, prefixReason);
        } else {
            java.util.Optional<String> refusal = SpeculationPlanner.rowRefusal(p.request().logprobs(), p.request().generation().constraint() != null);
            requestPlan = new RequestPlan(plan.batching(), plan.batchingReason(), cached, prefixReason, refusal.isEmpty(),
                    refusal.orElse("drafter " + speculation.plan().drafter().id() + ", up to " + speculation.plan().draftTokens() + " tokens per step"));
        }
        observer.admitted(p.prompt().length, cached);
        ServingRow row = new ServingRow(p.request(), p.ticket(), p.submitted(), requestPlan, session.tokenizer(), observer);
        p.request().events().onAdmitted(requestPlan);
        return row;
    }

    private void take(int n) {
        synchronized (lock) {
            for (int i = 0; i < n; i++) queue.removeFirst();
            busy = true; // before the queue looks empty to drain(), the taken requests count as running
        }
    }

    /**
     * Whether the running rows and {@code joining} fit the budget at the widest the batch can grow
     * to (every row padded to the longest prompt, plus the most tokens any row may still add),
     * evicting cached prefixes (oldest first) as far as that makes them fit.
     */
    private boolean makeRoom(List<Pending> joining) {
        long width = running == null ? 0 : running.width();
        long growth = 0;
        for (ServingRow r : rows) growth = Math.max(growth, r.request.generation().maxTokens() - r.state.generated());
        for (Pending p : joining) {
            width = Math.max(width, p.prompt().length);
            growth = Math.max(growth, p.request().generation().maxTokens());
        }
        // a speculative step holds up to K drafted columns per row until it rolls them back
        long slack = speculation == null ? 0 : speculation.plan().draftTokens();
        long projected = session.plan(rows.size() + joining.size(), width + growth + slack).projectedKvBytes();
        long budget = plan.config().memoryBudget();
        while (projected + prefixCache.bytes() > budget && prefixCache.evictOldest()) {
            // the oldest cached prefix gives way to a request
        }
        return projected + prefixCache.bytes() <= budget;
    }

    /** Prefills the cohort's next chunk; once its prompts are in, samples their first tokens and merges it into the batch. */
    private void prefillStep() {
        PrefillCohort c = cohort;
        float[] logits;
        try {
            int budget = pacer.budget(c.rows.size(), !rows.isEmpty());
            int tokens = c.tokens(budget);
            long start = System.nanoTime();
            logits = c.step(forward, budget);
            pacer.observe(tokens, System.nanoTime() - start);
            steps++;
        } catch (RuntimeException e) {
            cohort = null;
            fail(c.rows, e);
            c.close();
            return;
        }
        if (logits == null) return;
        cohort = null;
        int vocab = logits.length / c.rows.size();
        for (int i = 0; i < c.rows.size(); i++) {
            ServingRow row = c.rows.get(i);
            if (!row.ticket.cancelled()) row.step(logits, i * vocab, vocab);
        }
        List<ServingRow> kept = retire(c.caches, c.rows);
        if (kept.isEmpty()) {
            c.close();
            return;
        }
        if (running == null) {
            running = c.caches;
        } else {
            try {
                running.mergeIn(c.caches);
            } finally {
                c.close();
            }
        }
        rows.addAll(kept);
    }

    /**
     * Each running row's next token from its logits: on several threads (the common fork-join pool) when two rows or more
     * sample, since a draw reads every logit of the vocabulary (its softmax) and the rows' draws are independent (each
     * row's own sampler and random stream, so the same tokens on any thread); a batch of greedy rows only takes maxima.
     */
    private int[] draws(float[] logits, int vocab) {
        int[] next = new int[rows.size()];
        int sampling = 0;
        for (ServingRow r : rows) if (!r.state.request().sampling().isGreedy()) sampling++;
        IntStream each = IntStream.range(0, next.length);
        (sampling >= 2 ? each.parallel() : each).forEach(i -> next[i] = rows.get(i).draw(logits, i * vocab, vocab));
        return next;
    }

    /** One token for every running row. */
    private void decodeStep() {
        List<ServingRow> live = retire(running, rows);
        if (live.size() < rows.size()) {
            rows.clear();
            rows.addAll(live);
            if (rows.isEmpty()) {
                running.close();
                running = null;
                return;
            }
        }
        if (speculative != null) {
            speculative.step(running, running.distinctLayouts(), rows);
            steps++;
        } else {
            int[] ids = new int[rows.size()];
            for (int i = 0; i < ids.length; i++) ids[i] = rows.get(i).state.lastToken();
            float[] logits = forward.run(running, ids, ids.length, 1, true);
            steps++;
            int vocab = logits.length / ids.length;
            int[] next = draws(logits, vocab);
            for (int i = 0; i < ids.length; i++) rows.get(i).stepDrawn(next[i], logits, i * vocab, vocab);
        }
        List<ServingRow> kept = retire(running, rows);
        rows.clear();
        rows.addAll(kept);
        if (rows.isEmpty()) {
            running.close();
            running = null;
        }
    }

    /**
     * Removes finished and cancelled rows from {@code caches} (keeping finished rows' KV in the
     * prefix cache first); returns the rows that go on, in cache order. Leaves {@code caches}
     * untouched when every row goes on or none does.
     */
    private List<ServingRow> retire(LayerCaches caches, List<ServingRow> members) {
        List<ServingRow> kept = new ArrayList<>(members.size());
        int[] keep = new int[members.size()];
        for (int i = 0; i < members.size(); i++) {
            ServingRow row = members.get(i);
            if (!row.done()) {
                keep[kept.size()] = i;
                kept.add(row);
                continue;
            }
            if (row.ticket.cancelled() && !row.state.finished()) {
                row.cancelled();
            } else if (plan.prefixReuse()) {
                prefixCache.put(row.state.cachedIds(), caches.extractRow(i));
            }
        }
        if (!kept.isEmpty() && kept.size() < members.size()) caches.filterRows(java.util.Arrays.copyOf(keep, kept.size()));
        return kept;
    }

    private void failAll(RuntimeException error) {
        if (cohort != null) {
            PrefillCohort c = cohort;
            cohort = null;
            fail(c.rows, error);
            c.close();
        }
        if (!rows.isEmpty()) {
            List<ServingRow> failed = new ArrayList<>(rows);
            rows.clear();
            fail(failed, error);
        }
        if (running != null) {
            running.close();
            running = null;
        }
    }

    private static void fail(List<ServingRow> members, RuntimeException error) {
        for (ServingRow row : members) {
            if (row.ticket.cancelled()) {
                row.cancelled();
            } else if (!row.state.finished()) {
                row.failed(error);
            }
        }
    }

    private void publish() {
        int active = rows.size() + (cohort == null ? 0 : cohort.rows.size());
        long kv = (running == null ? 0 : running.projectedBytes(running.width()))
                + (cohort == null ? 0 : cohort.caches.projectedBytes(cohort.width()));
        synchronized (lock) {
            busy = active > 0;
            stats = new SchedulerStats(active, queue.size(), kv, prefixCache.bytes(), prefixCache.size(), plan.config().memoryBudget(), steps,
                    prefillNanos / 1e9, decodeNanos / 1e9);
            lock.notifyAll();
        }
    }
}
