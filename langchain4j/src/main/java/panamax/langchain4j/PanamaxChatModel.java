package panamax.langchain4j;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.serve.Completion;
import panamax.engine.serve.RowEvents;
import panamax.engine.serve.Ticket;
import panamax.engine.serve.TokenEvent;

/**
 * A blocking LangChain4j {@link ChatModel} over a {@link PanamaxChatModels}' scheduler: each call
 * queues one request and waits for it, batched with whatever else runs. Thread-safe; obtained from
 * {@link PanamaxChatModels#chatModel()} and usable until that owner closes.
 *
 * <p>The response carries {@link PanamaxChatResponseMetadata} (prompt tokens reused from the prefix
 * cache, timings). A request is refused with {@link dev.langchain4j.exception.UnsupportedFeatureException}
 * for tools, a non-text response format or penalties, with {@link IllegalArgumentException} for a
 * message other than system, user or AI text; a prompt and token limit beyond the model's context or
 * KV budget fail with {@link dev.langchain4j.exception.InvalidRequestException}, a full queue with
 * {@link dev.langchain4j.exception.RateLimitException}, a closed owner with {@link IllegalStateException}.
 * An interrupted caller cancels its request.
 */
public final class PanamaxChatModel implements ChatModel {
    private final PanamaxChatModels owner;

    PanamaxChatModel(PanamaxChatModels owner) {
        this.owner = owner;
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        GenerationRequest generation = owner.requests().generation(request);
        CompletableFuture<Completion> done = new CompletableFuture<>();
        Ticket ticket;
        try {
            ticket = owner.submit(generation, new RowEvents() {
                @Override
                public void onToken(TokenEvent token) {
                    // the completion carries the whole text
                }

                @Override
                public void onFinish(Completion completion) {
                    done.complete(completion);
                }

                @Override
                public void onError(RuntimeException error) {
                    done.completeExceptionally(error);
                }
            });
        } catch (RuntimeException e) {
            throw ChatRequests.translated(e);
        }
        try {
            return owner.requests().response("panamax-" + ticket.id(), done.get());
        } catch (InterruptedException e) {
            ticket.cancel();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the model; the request was cancelled", e);
        } catch (ExecutionException e) {
            throw ChatRequests.translated(e.getCause());
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
