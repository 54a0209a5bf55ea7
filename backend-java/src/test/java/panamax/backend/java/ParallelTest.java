package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.Parallel;

/**
 * The backend's worker pool: every index once, full ranges cut into shrinking chunks, failures to the caller, helpers woken
 * after they park, threads ended by close.
 */
class ParallelTest {
    /** How long a wait for an event may take before it counts as lost: a bound on failure, never a pass condition. */
    private static final Duration LOST = Duration.ofSeconds(30);

    @Test
    void everyIndexRunsExactlyOnceAcrossCallsWithAndWithoutPauses() throws InterruptedException {
        Random random = new Random(7);
        try (Parallel parallel = new Parallel(3)) {
            for (int call = 0; call < 300; call++) {
                int n = random.nextInt(5000);
                int grain = 1 + random.nextInt(64);
                assertEachIndexOnce(n, "call " + call + ", grain " + grain, range -> parallel.forRange(n, grain, range));
                int min = 1 + random.nextInt(100); // even splits, shrinking chunks where they still hold min
                assertEachIndexOnce(n, "call " + call + ", even split, min " + min, range -> parallel.forEvenSplit(n, min, range));
                if (call % 50 == 49) awaitParked(parallel.threadNamePrefix()); // the next call wakes them
            }
        }
    }

    @Test
    void aFullRangeShrinksItsChunksToTheMinimumAndASmallOneIsCutEvenly() {
        try (Parallel parallel = new Parallel(2)) {
            // each chunk a quarter (1 / (2 · threads)) of what is left, rounded up, down to chunks of one
            assertEquals(List.of(0, 100, 175, 232, 274, 306, 330, 348, 361, 371, 379, 385, 389, 392, 394, 396, 397, 398, 399, 400),
                    bounds(parallel, 400, 1));
            // never under minPerChunk: the chunk that would leave less than 10 behind takes the rest
            assertEquals(List.of(0, 100, 175, 232, 274, 306, 330, 348, 361, 371, 381, 400), bounds(parallel, 400, 10));
            // the shrinking chunks would hold fewer than minPerChunk (400 / 16 = 25 < 30): eight equal chunks
            assertEquals(List.of(0, 50, 100, 150, 200, 250, 300, 350, 400), bounds(parallel, 400, 30));
            Set<List<Integer>> chunks = ConcurrentHashMap.newKeySet();
            parallel.forRange(90, 30, (from, to) -> chunks.add(List.of(from, to))); // three chunks, not the full eight
            assertEquals(Set.of(List.of(0, 30), List.of(30, 60), List.of(60, 90)), chunks);
        }
    }

    /** The chunk bounds {@code forEvenSplit(n, minPerChunk)} ran, in order. */
    private static List<Integer> bounds(Parallel parallel, int n, int minPerChunk) {
        Set<Integer> starts = new ConcurrentSkipListSet<>();
        parallel.forEvenSplit(n, minPerChunk, (from, to) -> {
            starts.add(from);
            starts.add(to);
        });
        return List.copyOf(starts);
    }

    /** Runs {@code call} with a range that counts the indices it is given, and checks each of {@code [0, n)} came once. */
    private static void assertEachIndexOnce(int n, String what, Consumer<Parallel.Range> call) {
        AtomicIntegerArray seen = new AtomicIntegerArray(Math.max(n, 1));
        call.accept((from, to) -> {
            for (int i = from; i < to; i++) seen.incrementAndGet(i);
        });
        for (int i = 0; i < n; i++) assertEquals(1, seen.get(i), what + ": index " + i + " of " + n);
    }

    @Test
    void eachParticipatingThreadMakesOneStatePerCall() {
        try (Parallel parallel = new Parallel(3)) {
            for (int call = 0; call < 100; call++) {
                AtomicInteger states = new AtomicInteger();
                Set<Thread> threads = ConcurrentHashMap.newKeySet();
                parallel.forRange(1000, 10, () -> {
                    states.incrementAndGet();
                    return Thread.currentThread();
                }, (from, to, owner) -> {
                    assertSame(Thread.currentThread(), owner, "a state handed to another thread");
                    threads.add(Thread.currentThread());
                });
                assertEquals(threads.size(), states.get(), "call " + call + ": states made against threads that ran chunks");
            }
        }
    }

    @Test
    void aFailingChunkReachesTheCallerAndThePoolGoesOn() {
        try (Parallel parallel = new Parallel(2)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> parallel.forRange(100, 1, (from, to) -> {
                if (from <= 50 && 50 < to) throw new IllegalStateException("chunk with index 50");
            }));
            assertEquals("chunk with index 50", e.getMessage());
            AtomicInteger sum = new AtomicInteger();
            parallel.forRange(100, 1, (from, to) -> sum.addAndGet(to - from));
            assertEquals(100, sum.get());
        }
    }

    /**
     * A helper parked (seen parked, not slept for) is woken by the next range: the caller's chunk waits
     * until a helper has run one, so the test passes as soon as the wake-up happens, however late; a
     * lost wake-up leaves the caller waiting and fails after {@link #LOST}. Then close ends the threads.
     */
    @Test
    void parkedHelpersAreWokenAndCloseEndsTheirThreads() throws InterruptedException {
        Parallel parallel = new Parallel(2);
        String prefix = parallel.threadNamePrefix();
        Thread caller = Thread.currentThread();
        parallel.forRange(8, 1, (from, to) -> { }); // starts the helper thread
        for (int round = 0; round < 5; round++) {
            awaitParked(prefix);
            CountDownLatch helperRan = new CountDownLatch(1);
            Set<Thread> ran = ConcurrentHashMap.newKeySet();
            int r = round;
            parallel.forRange(8, 1, (from, to) -> {
                ran.add(Thread.currentThread());
                if (Thread.currentThread() != caller) {
                    helperRan.countDown();
                    return;
                }
                try { // the caller holds its chunk until a helper has claimed one
                    if (!helperRan.await(LOST.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new AssertionError("round " + r + ": no helper ran a chunk within " + LOST + " of being woken (lost wake-up?)");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            });
            assertTrue(ran.stream().anyMatch(t -> t != caller && t.getName().startsWith(prefix)), "round " + r + ": ran on " + ran);
        }
        List<Thread> threads = helpers(prefix);
        assertEquals(1, threads.size(), "helper threads of a pool of 2: " + threads);
        parallel.close();
        for (Thread t : threads) {
            t.join(LOST);
            assertFalse(t.isAlive(), t.getName() + " alive " + LOST + " after close");
        }
    }

    /** Waits (on the threads' state, not a time) until every helper thread of the pool is parked. */
    private static void awaitParked(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + LOST.toNanos();
        while (!helpers(prefix).stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING && LockSupport.getBlocker(t) != null)) {
            assertTrue(System.nanoTime() < deadline, "helpers of " + prefix + " not parked after " + LOST + ": " + helpers(prefix));
            Thread.sleep(1);
        }
    }

    private static List<Thread> helpers(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix) && t.isAlive()).toList();
    }
}
