package panamax.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.concurrent.LinkedBlockingQueue;
import panamax.engine.serve.Completion;
import panamax.engine.serve.RowEvents;
import panamax.engine.serve.Ticket;
import panamax.engine.serve.TokenEvent;

/**
 * One streaming request's events, handed from the scheduler thread (which must never wait on a
 * handler) to a delivery thread that calls the LangChain4j handler in order. The queue is unbounded:
 * it holds at most the request's token texts.
 */
final class StreamRelay implements RowEvents, Runnable {
    private final StreamingChatResponseHandler handler;
    private final ChatRequests requests;
    // String: a text delta; Completion: the end; RuntimeException: a failure
    private final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private volatile Ticket ticket;

    StreamRelay(StreamingChatResponseHandler handler, ChatRequests requests) {
        this.handler = handler;
        this.requests = requests;
    }

    void attach(Ticket ticket) {
        this.ticket = ticket;
    }

    @Override
    public void onToken(TokenEvent token) {
        if (!token.text().isEmpty()) events.add(token.text());
    }

    @Override
    public void onFinish(Completion completion) {
        events.add(completion);
    }

    @Override
    public void onError(RuntimeException error) {
        events.add(error);
    }

    /** Delivers until the request ends (or its handler fails); runs on the delivery thread. */
    @Override
    public void run() {
        try {
            while (true) {
                Object event = events.take();
                switch (event) {
                    case String text -> {
                        try {
                            handler.onPartialResponse(text);
                        } catch (RuntimeException e) {
                            ticket.cancel(); // the scheduler sends nothing more
                            handler.onError(e);
                            return;
                        }
                    }
                    case Completion completion -> {
                        ChatResponse response;
                        try {
                            response = requests.response("panamax-" + ticket.id(), completion);
                        } catch (RuntimeException e) {
                            handler.onError(e);
                            return;
                        }
                        handler.onCompleteResponse(response);
                        return;
                    }
                    case RuntimeException error -> {
                        handler.onError(ChatRequests.translated(error));
                        return;
                    }
                    default -> throw new IllegalStateException("unexpected stream event " + event);
                }
            }
        } catch (InterruptedException e) {
            ticket.cancel();
            Thread.currentThread().interrupt();
        }
    }
}
