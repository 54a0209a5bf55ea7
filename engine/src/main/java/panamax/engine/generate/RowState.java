package panamax.engine.generate;

import java.util.Arrays;
import panamax.api.model.Tokenizer;

/**
 * One row of a generation call: its sampler, its token history (prompt then generated ids), its
 * detokenizer and stop-string matcher, and its text so far. Not thread-safe.
 */
final class RowState {
    final int row;
    final GenerationRequest request;
    private final Sampler sampler;
    private final StreamDetokenizer detokenizer;
    private final StopStrings stops;
    private final StringBuilder text = new StringBuilder();
    private int[] history;
    private int historyLength;
    private int generated;
    private FinishReason finish;

    RowState(int row, GenerationRequest request, Tokenizer tokenizer) {
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
    int step(float[] logits, int from, int vocab, GenerationListener listener) {
        int id = sampler.next(logits, from, vocab, history, historyLength);
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

    boolean finished() {
        return finish != null;
    }

    int lastToken() {
        return history[historyLength - 1];
    }

    int generated() {
        return generated;
    }

    GenerationResult result() {
        int prompt = request.promptIds().length;
        return new GenerationResult(Arrays.copyOfRange(history, prompt, historyLength), text.toString(), finish);
    }
}
