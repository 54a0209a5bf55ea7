package panamax.langchain4j;

import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.serve.Ticket;

/**
 * A streaming LangChain4j {@link StreamingChatModel} over a {@link PanamaxChatModels}' scheduler:
 * each call queues one request and returns at once; the handler receives
 * {@link StreamingChatResponseHandler#onPartialResponse(String)} per non-empty text delta (the deltas
 * concatenate to the final text), then one {@link StreamingChatResponseHandler#onCompleteResponse}
 * or {@link StreamingChatResponseHandler#onError}. Thread-safe; obtained from
 * {@link PanamaxChatModels#streamingChatModel()}.
 *
 * <p>The handler is called on a virtual thread of its own request, never on the scheduler's, so it
 * may block; calls for one request come in order, one at a time. A handler that throws from
 * {@code onPartialResponse} cancels its request and receives that exception at {@code onError}.
 * Requests panamax cannot express (tools, a non-text response format, penalties, messages other than
 * system, user or AI text) are refused by throwing, as {@link PanamaxChatModel} does; the scheduler's
 * refusals (context or KV budget exceeded, queue full, owner closed) and failures arrive at
 * {@code onError} as the same exceptions {@link PanamaxChatModel} throws.
 */
public final class PanamaxStreamingChatModel implements StreamingChatModel {
    private final PanamaxChatModels owner;

    PanamaxStreamingChatModel(PanamaxChatModels owner) {
        this.owner = owner;
    }

    @Override
    public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        GenerationRequest generation = owner.requests().generation(request);
        StreamRelay relay = new StreamRelay(handler, owner.requests());
        Ticket ticket;
        try {
            ticket = owner.submit(generation, relay.events());
        } catch (RuntimeException e) {
            handler.onError(ChatRequests.translated(e));
            return;
        }
        relay.attach(ticket);
        try {
            owner.deliver(relay);
        } catch (RejectedExecutionException e) {
            ticket.cancel();
            handler.onError(new IllegalStateException("the panamax chat models are closed", e));
        }
    }

    @Override
    public ChatRequestParameters defaultRequestParameters() {
        return owner.defaultRequestParameters();
    }

    @Override
    public List<ChatModelListener> listeners() {
        return owner.listeners();
    }

    /** The name responses carry. */
    public String modelName() {
        return owner.modelName();
    }
}
