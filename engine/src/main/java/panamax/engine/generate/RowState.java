package panamax.engine.generate;

import java.util.Arrays;
import panamax.api.model.Tokenizer;
import panamax.engine.structured.Constraints;
import panamax.engine.structured.GrammarCursor;

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
    /** The row's place in its output grammar, or null when unconstrained. */
    private final GrammarCursor grammar;
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
        if (request.constraint() != null && tokenizer == null) {
            throw new IllegalArgumentException("an output grammar needs a tokenizer: the generator has none");
        }
        this.grammar = request.constraint() == null ? null
                : Constraints.bind(request.constraint(), tokenizer).start(request.stopIds());
        this.history = Arrays.copyOf(request.promptIds(), request.promptIds().length + request.maxTokens());
        this.historyLength = request.promptIds().length;
    }

    /** Samples this row's next token from {@code logits[from, from + vocab)}, records it and reports it. */
    public int step(float[] logits, int from, int vocab, GenerationListener listener) {
        return record(draw(logits, from, vocab), listener);
    }

    /**
     * The first half of {@link #step}: this row's next token from {@code logits[from, from + vocab)} (under its grammar,
     * which takes it), not yet recorded; {@link #recordDrawn} must follow. It reads the logits and touches only this
     * row's sampler and grammar, so the rows of a batch may draw on different threads.
     */
    public int draw(float[] logits, int from, int vocab) {
        return grammar == null ? sampler.next(logits, from, vocab, history, historyLength) : constrainedNext(logits, from, vocab);
    }

    /** The second half of {@link #step}: records the token {@link #draw} returned and reports it. */
    public int recordDrawn(int id, GenerationListener listener) {
        return record(id, listener);
    }

    /**
     * Records {@code id} as this row's next token, chosen elsewhere (a verified speculative draft),
     * and reports it; stops apply as for {@link #step}. A row under a grammar is never speculated
     * (the planner refuses it), since its grammar advances only through {@link #step}.
     */
    public int accept(int id, GenerationListener listener) {
        if (finish != null) throw new IllegalStateException("row " + row + " already finished (" + finish + ")");
        if (grammar != null) throw new IllegalStateException("row " + row + " decodes under an output grammar: its tokens come from step, not a draft");
        return record(id, listener);
    }

    private int record(int id, GenerationListener listener) {
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
        } else if (grammar != null && grammar.complete()) {
            finish(FinishReason.EOS, listener); // the grammar admits nothing more: as if it drew an end id
        } else if (generated == request.maxTokens()) {
            finish(FinishReason.LENGTH, listener);
        }
        return id;
    }

    /**
     * The next id under the row's grammar. Greedy decoding tries the unmasked argmax first: when the
     * grammar allows it, it is the masked argmax too, and no mask is built.
     */
    private int constrainedNext(float[] logits, int from, int vocab) {
        int id = -1;
        if (sampler.params().isGreedy() && sampler.params().repetitionPenalty() == 1) {
            int best = sampler.next(logits, from, vocab, history, historyLength);
            if (grammar.allows(best)) id = best;
        }
        if (id < 0) id = sampler.next(logits, from, vocab, history, historyLength, grammar.allowed());
        grammar.accept(id);
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
