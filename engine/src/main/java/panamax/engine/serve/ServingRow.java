package panamax.engine.serve;

import java.util.ArrayList;
import java.util.List;
import panamax.api.model.Tokenizer;
import panamax.engine.generate.FinishReason;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.RowState;
import panamax.engine.speculative.SpeculativeRow;

/**
 * One admitted request on the scheduler thread: its {@link RowState} (sampler, stops, text), its
 * ticket, its timings, and the log-probabilities it asked for. Not thread-safe.
 */
final class ServingRow implements GenerationListener, SpeculativeRow {
    final ServeRequest request;
    final Ticket ticket;
    final RowState state;
    final RequestPlan plan;
    private final long submitted;
    private final long admitted;
    private final SchedulerObserver observer;
    private final StringBuilder delta = new StringBuilder();
    private long firstToken = -1;
    private long lastToken;

    ServingRow(ServeRequest request, Ticket ticket, long submitted, RequestPlan plan, Tokenizer tokenizer, SchedulerObserver observer) {
        this.request = request;
        this.ticket = ticket;
        this.submitted = submitted;
        this.admitted = System.nanoTime();
        this.plan = plan;
        this.observer = observer;
        this.state = new RowState(0, request.generation(), tokenizer);
    }

    /** Draws this row's next token from {@code logits[from, from + vocab)} and reports it (and the row's end). */
    @Override
    public void step(float[] logits, int from, int vocab) {
        stepDrawn(draw(logits, from, vocab), logits, from, vocab);
    }

    /** This row's next token from its logits, not yet recorded ({@link RowState#draw}): a batch's rows may draw on several threads. */
    int draw(float[] logits, int from, int vocab) {
        return state.draw(logits, from, vocab);
    }

    /** The rest of {@link #step} for the token {@link #draw} returned: records it and hands it out. */
    void stepDrawn(int id, float[] logits, int from, int vocab) {
        request.events().onLogits(logits, from, vocab);
        delta.setLength(0);
        reported(state.recordDrawn(id, this), logits, from, vocab);
    }

    /** Records {@code id}, chosen by speculative verification from the target logits {@code logits[from, from + vocab)}, and reports it. */
    @Override
    public void accept(int id, float[] logits, int from, int vocab) {
        request.events().onLogits(logits, from, vocab);
        delta.setLength(0);
        reported(state.accept(id, this), logits, from, vocab);
    }

    @Override
    public long key() {
        return ticket.id();
    }

    @Override
    public RowState state() {
        return state;
    }

    @Override
    public boolean speculates() {
        return plan.speculative();
    }

    private void reported(int id, float[] logits, int from, int vocab) {
        long now = System.nanoTime();
        if (firstToken < 0) {
            firstToken = now;
            observer.firstToken((now - submitted) / 1e9);
        } else {
            observer.interToken((now - lastToken) / 1e9);
        }
        lastToken = now;
        TokenEvent event = request.logprobs() ? withLogprobs(id, logits, from, vocab, request.topLogprobs())
                : new TokenEvent(id, delta.toString(), Double.NaN, List.of());
        request.events().onToken(event);
        if (state.finished()) {
            Completion done = completion();
            observer.finished(outcome(done.result().finish()), done.completionTokens(), done.totalSeconds());
            request.events().onFinish(done);
        }
    }

    @Override
    public void onText(int row, String text) {
        delta.append(text);
    }

    /** The scheduler prefills other rows before this row's next token. */
    void idle() {
        request.events().onIdle();
    }

    /** Whether the row stopped or its caller went away. */
    boolean done() {
        return state.finished() || ticket.cancelled();
    }

    /** Reports a row whose caller went away. */
    void cancelled() {
        observer.finished("cancelled", state.generated(), (System.nanoTime() - submitted) / 1e9);
    }

    /** Reports a row that cannot finish. */
    void failed(RuntimeException error) {
        observer.finished("error", state.generated(), (System.nanoTime() - submitted) / 1e9);
        request.events().onError(error);
    }

    private Completion completion() {
        long now = System.nanoTime();
        return new Completion(state.result(), request.generation().promptIds().length, plan.cachedTokens(), plan,
                (admitted - submitted) / 1e9, (firstToken - submitted) / 1e9, (now - submitted) / 1e9);
    }

    private static String outcome(FinishReason reason) {
        return reason == FinishReason.LENGTH ? "length" : "stop";
    }

    /** The token's log-probability under the raw logits and the {@code k} most likely tokens (log-softmax in double). */
    private TokenEvent withLogprobs(int id, float[] logits, int from, int vocab, int k) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = from; i < from + vocab; i++) max = Math.max(max, logits[i]);
        double sum = 0;
        for (int i = from; i < from + vocab; i++) sum += Math.exp(logits[i] - max);
        double norm = max + Math.log(sum);
        List<TokenEvent.Alternative> top = new ArrayList<>(k);
        if (k > 0) {
            int[] best = new int[k];
            int n = 0;
            for (int i = 0; i < vocab; i++) {
                float v = logits[from + i];
                if (n == k && v <= logits[from + best[k - 1]]) continue;
                int at = n < k ? n++ : k - 1;
                while (at > 0 && logits[from + best[at - 1]] < v) {
                    best[at] = best[at - 1];
                    at--;
                }
                best[at] = i;
            }
            for (int j = 0; j < n; j++) top.add(new TokenEvent.Alternative(best[j], logits[from + best[j]] - norm));
        }
        return new TokenEvent(id, delta.toString(), logits[from + id] - norm, top);
    }
}
