package panamax.server.scheduler;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import panamax.engine.serve.Completion;
import panamax.engine.serve.RequestPlan;
import panamax.engine.serve.RowEvents;
import panamax.engine.serve.TokenEvent;

/**
 * Records one row's events: a copy of the logits of every step, the rows of the forward pass
 * that produced them, its tokens, and how it ended. Written on the scheduler thread, read after
 * {@link #await} (the future's completion publishes the writes).
 */
class Recorder implements RowEvents {
    final List<float[]> logits = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> batchRows = Collections.synchronizedList(new ArrayList<>());
    final List<TokenEvent> tokens = Collections.synchronizedList(new ArrayList<>());
    final CompletableFuture<RequestPlan> admitted = new CompletableFuture<>();
    final CompletableFuture<Completion> done = new CompletableFuture<>();
    volatile long admittedAt;
    volatile long endedAt;

    @Override
    public void onAdmitted(RequestPlan plan) {
        admittedAt = System.nanoTime();
        admitted.complete(plan);
    }

    @Override
    public void onLogits(float[] all, int from, int vocab) {
        float[] row = new float[vocab];
        System.arraycopy(all, from, row, 0, vocab);
        logits.add(row);
        batchRows.add(all.length / vocab);
    }

    @Override
    public void onToken(TokenEvent token) {
        tokens.add(token);
    }

    @Override
    public void onFinish(Completion completion) {
        endedAt = System.nanoTime();
        done.complete(completion);
    }

    @Override
    public void onError(RuntimeException error) {
        endedAt = System.nanoTime();
        done.completeExceptionally(error);
    }

    /** The completion, failing the test when the row ended with an error or took over {@code seconds}. */
    Completion await(int seconds) {
        try {
            return done.get(seconds, TimeUnit.SECONDS);
        } catch (Exception e) {
            return fail("the row did not finish: " + e, e);
        }
    }

    int[] ids() {
        synchronized (tokens) {
            return tokens.stream().mapToInt(TokenEvent::id).toArray();
        }
    }
}
