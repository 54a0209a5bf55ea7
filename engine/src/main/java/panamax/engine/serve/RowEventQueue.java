package panamax.engine.serve;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Hands one row's events from the scheduler thread to the thread that answers its caller (an HTTP
 * request, a LangChain4j handler): the scheduler only adds to an unbounded queue (it holds at most
 * the row's tokens) and never waits; the reader takes them in order. An event is a
 * {@link RequestPlan}, a {@link TokenEvent}, a {@link Completion} or a {@link RuntimeException};
 * the last two end the row. Thread-safe for one writer and one reader.
 */
public final class RowEventQueue implements RowEvents {
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
    public Object next(long millis) throws InterruptedException {
        return events.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** The next event, waiting as long as it takes. */
    public Object take() throws InterruptedException {
        return events.take();
    }
}
