package panamax.engine.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The scheduler-to-reader hand-off: every event arrives once and in order, however the reader waits; the first
 * token, a token past the poll interval, the end and {@code onIdle} wake a waiting reader at once, while tokens
 * within the interval wait for the next wake-up.
 */
class RowEventQueueTest {
    private static TokenEvent token(int i) {
        return new TokenEvent(i, "t" + i, 0, List.of());
    }

    @Test
    void aBurstOfTokensThenSlowOnesArriveInOrderAndNoneIsMissed() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            RowEventQueue q = new RowEventQueue();
            RuntimeException end = new IllegalStateException("end");
            int fast = 20_000, slow = 5;
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < fast; i++) q.onToken(token(i)); // most wait for a later wake-up
                for (int i = fast; i < fast + slow; i++) {
                    sleep(15); // slower than the poll interval: each wakes the reader
                    q.onToken(token(i));
                }
                sleep(15);
                q.onError(end);
            });
            for (int i = 0; i < fast + slow; i++) {
                Object e = q.take();
                assertEquals(i, ((TokenEvent) e).id(), "token " + i + " in order");
            }
            assertSame(end, q.take(), "the end, after every token");
            writer.join();
        });
    }

    private static final long LONG_POLL = 10_000_000_000L;

    @Test
    void tokensWithinThePollIntervalWaitUntilTheSchedulerTurnsToOtherWork() throws Exception {
        RowEventQueue q = new RowEventQueue(LONG_POLL);
        q.onToken(token(1));
        assertEquals(1, ((TokenEvent) q.take()).id());
        CompletableFuture<Object> reader = CompletableFuture.supplyAsync(() -> next(q, 20_000));
        sleep(100); // the reader is parked by now
        q.onToken(token(2)); // within the interval of the first token's wake-up: held back
        sleep(300);
        assertTrue(!reader.isDone(), "a held token does not wake the reader");
        long t0 = System.nanoTime();
        q.onIdle();
        assertEquals(2, ((TokenEvent) reader.get()).id());
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "woken by onIdle, not by the 20 s timeout");
    }

    @Test
    void theFirstTokenAndTheEndWakeTheReaderAtOnce() throws Exception {
        RowEventQueue q = new RowEventQueue(LONG_POLL);
        CompletableFuture<Object> first = CompletableFuture.supplyAsync(() -> next(q, 20_000));
        sleep(50);
        q.onToken(token(1));
        assertEquals(1, ((TokenEvent) first.get(5, java.util.concurrent.TimeUnit.SECONDS)).id());
        CompletableFuture<Object> second = CompletableFuture.supplyAsync(() -> next(q, 20_000));
        sleep(50);
        q.onToken(token(2)); // held
        RuntimeException end = new IllegalStateException("end");
        q.onError(end);
        assertEquals(2, ((TokenEvent) second.get(5, java.util.concurrent.TimeUnit.SECONDS)).id());
        assertSame(end, q.next(0));
    }

    @Test
    void aTokenPastThePollIntervalWakesTheReader() throws Exception {
        RowEventQueue q = new RowEventQueue(50_000_000L); // 50 ms
        q.onToken(token(1));
        assertEquals(1, ((TokenEvent) q.take()).id());
        CompletableFuture<Object> reader = CompletableFuture.supplyAsync(() -> next(q, 20_000));
        sleep(120);
        q.onToken(token(2));
        assertEquals(2, ((TokenEvent) reader.get(5, java.util.concurrent.TimeUnit.SECONDS)).id());
    }

    private static Object next(RowEventQueue q, long millis) {
        try {
            return q.next(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aWaitingReaderGetsATokenLongBeforeItsTimeout() throws Exception {
        RowEventQueue q = new RowEventQueue();
        CompletableFuture.runAsync(() -> {
            sleep(50);
            q.onToken(token(7));
        });
        long t0 = System.nanoTime();
        Object e = q.next(20_000);
        assertEquals(7, ((TokenEvent) e).id());
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "woken by the token, not by the 20 s timeout");
    }

    @Test
    void nextReturnsNullAtItsTimeoutAndReadyTellsWhetherAnEventWaits() throws Exception {
        RowEventQueue q = new RowEventQueue();
        assertNull(q.next(5), "no event within 5 ms");
        assertTrue(!q.ready());
        q.onToken(token(1));
        q.onToken(token(2));
        assertTrue(q.ready(), "two tokens wait");
        assertEquals(1, ((TokenEvent) q.next(0)).id());
        assertEquals(2, ((TokenEvent) q.next(0)).id());
        assertTrue(!q.ready());
    }

    @Test
    void anInterruptedReaderStops() {
        RowEventQueue q = new RowEventQueue();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, q::take);
        assertTrue(!Thread.interrupted(), "the interrupt is consumed by the exception");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
