package panamax.engine.generate;

import java.util.Arrays;
import panamax.api.model.Tokenizer;

/**
 * One row of a generation call: its sampler, its token history (prompt then generated ids), its
 * detokenizer and stop-string matcher, and its text so far. Shared by {@link Generator} and the
 * serving scheduler so that a row behaves the same in both. Not thread-safe.
 */
public final class RowState {
    private final int row;
    private final GenerationRequest request;
    private final Sampler sampler;
    private final StreamDetokenizer detokenizer;
    private final StopStrings stops;
    private final StringBuilder text = new StringBuilder();
    private int[] history;
    private int historyLength;
    private int generated;
    private FinishReason finish;

    /**
     * @param row       the row number reported to listeners
     * @param tokenizer turns ids into text deltas, or null to generate ids only
     */
    public RowState(int row, GenerationRequest request, Tokenizer tokenizer) {
        this.row = row;
        this.request = request;
        this.sampler = new Sampler(request.sampling());
        this.detokenizer = tokenizer == null ? null : new StreamDetokenizer(tokenizer);
        this.stops = new StopStrings(request.stopStrings());
        if (tokenizer == null && !request.stopStrings().isEmpty()) {
            throw new IllegalArgumentException("stop strings need a tokenizer: the generator has none");
        }
        this.history = Arrays.copyOf(request.promptIds(), request.promptIds().length + request.maxTokens());
        this.historyLength = request.promptIds().length;
    }

    /** Samples this row's next token from {@code logits[from, from + vocab)}, records it and reports it. */
    public int step(float[] logits, int from, int vocab, GenerationListener listener) {
        return accept(sampler.next(logits, from, vocab, history, historyLength), listener);
    }

    /**
     * Records {@code id} as this row's next token, chosen elsewhere (a verified speculative draft),
     * and reports it; stops apply as for {@link #step}.
     */
    public int accept(int id, GenerationListener listener) {
        if (finish != null) throw new IllegalStateException("row " + row + " already finished (" + finish + ")");
        history[historyLength++] = id;
        generated++;
        listener.onToken(row, id);
        if (request.stopIds().contains(id)) {
            finish(FinishReason.EOS, listener);
            return id;
        }
        if (detokenizer != null) emit(stops.accept(detokenizer.add(id)), listener);
        if (stops.stopped()) {
            finish = FinishReason.STOP_STRING;
        } else if (generated == request.maxTokens()) {
            finish(FinishReason.LENGTH, listener);
        }
        return id;
    }

    /** The request this row runs. */
    public GenerationRequest request() {
        return request;
    }

    /**
     * The ids whose keys and values a cache holds once this row stopped: the prompt and every
     * generated id but the last, which was never fed back.
     */
    public int[] cachedIds() {
        return Arrays.copyOf(history, Math.max(0, historyLength - 1));
    }

    private void finish(FinishReason reason, GenerationListener listener) {
        if (detokenizer != null) {
            emit(stops.accept(detokenizer.flush()), listener);
            emit(stops.finish(), listener);
        }
        finish = stops.stopped() ? FinishReason.STOP_STRING : reason;
    }

    private void emit(String delta, GenerationListener listener) {
        if (delta.isEmpty()) return;
        text.append(delta);
        listener.onText(row, delta);
    }

    /** This row's sampler (its parameters and random stream). */
    public Sampler sampler() {
        return sampler;
    }

    /** The prompt and generated ids so far; valid up to {@link #historyLength()}. Borrowed: do not modify. */
    public int[] history() {
        return history;
    }

    public int historyLength() {
        return historyLength;
    }

    /** Tokens this row may still generate. */
    public int remaining() {
        return request.maxTokens() - generated;
    }

    public boolean finished() {
        return finish != null;
    }

    public int lastToken() {
        return history[historyLength - 1];
    }

    public int generated() {
        return generated;
    }

    public GenerationResult result() {
        int prompt = request.promptIds().length;
        return new GenerationResult(Arrays.copyOfRange(history, prompt, historyLength), text.toString(), finish);
    }
}
