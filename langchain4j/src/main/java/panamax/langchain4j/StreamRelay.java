package panamax.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import panamax.engine.serve.Completion;
import panamax.engine.serve.RowEventQueue;
import panamax.engine.serve.Ticket;
import panamax.engine.serve.TokenEvent;

/**
 * Delivers one streaming request's events, queued by the scheduler thread (which must never wait on
 * a handler), to the LangChain4j handler in order, on a delivery thread.
 */
final class StreamRelay implements Runnable {
    private final StreamingChatResponseHandler handler;
    private final ChatRequests requests;
    private final RowEventQueue events = new RowEventQueue();
    private volatile Ticket ticket;

    StreamRelay(StreamingChatResponseHandler handler, ChatRequests requests) {
        this.handler = handler;
        this.requests = requests;
    }

    void attach(Ticket ticket) {
        this.ticket = ticket;
    }

    /** Where the scheduler sends the request's events. */
    RowEventQueue events() {
        return events;
    }

    /** Delivers until the request ends (or its handler fails); runs on the delivery thread. */
    @Override
    public void run() {
        try {
            while (true) {
                Object event = events.take();
                switch (event) {
                    case TokenEvent token when token.text().isEmpty() -> {
                        // held back: part of a character or of a possible stop string
                    }
                    case TokenEvent token -> {
                        try {
                            handler.onPartialResponse(token.text());
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
                    default -> {
                        // the admission notice: nothing to deliver
                    }
                }
            }
        } catch (InterruptedException e) {
            ticket.cancel();
            Thread.currentThread().interrupt();
        }
    }
}
