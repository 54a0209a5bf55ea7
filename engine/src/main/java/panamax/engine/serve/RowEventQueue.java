package panamax.server;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import panamax.engine.serve.Completion;
import panamax.engine.serve.RequestPlan;
import panamax.engine.serve.RowEvents;
import panamax.engine.serve.TokenEvent;

/**
 * Hands one row's events from the scheduler thread to the thread answering the request: the
 * scheduler only adds to an unbounded queue and never waits; the reader takes them in order.
 * An event is a {@link RequestPlan}, a {@link TokenEvent}, a {@link Completion} or a
 * {@link RuntimeException}; the last two end the stream.
 */
final class RowStream implements RowEvents {
    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

    @Override
    public void onAdmitted(RequestPlan plan) {
        events.add(plan);
    }

    @Override
    public void onToken(TokenEvent token) {
        events.add(token);
    }

    @Override
    public void onFinish(Completion completion) {
        events.add(completion);
    }

    @Override
    public void onError(RuntimeException error) {
        events.add(error);
    }

    /** The next event, waiting at most {@code millis}; null when none came. */
    Object next(long millis) throws InterruptedException {
        return events.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** Whether {@code event} ends the stream. */
    static boolean last(Object event) {
        return event instanceof Completion || event instanceof RuntimeException;
    }
}
