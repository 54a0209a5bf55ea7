package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import panamax.backend.java.kernel.Parallel;

/** The backend's worker pool: every index once, failures to the caller, helpers woken after they park, threads ended by close. */
class ParallelTest {

    @Test
    void everyIndexRunsExactlyOnceAcrossCallsWithAndWithoutPauses() throws InterruptedException {
        Random random = new Random(7);
        try (Parallel parallel = new Parallel(3)) {
            for (int call = 0; call < 300; call++) {
                int n = random.nextInt(2000);
                int grain = 1 + random.nextInt(64);
                AtomicIntegerArray seen = new AtomicIntegerArray(Math.max(n, 1));
                parallel.forRange(n, grain, (from, to) -> {
                    for (int i = from; i < to; i++) seen.incrementAndGet(i);
                });
                for (int i = 0; i < n; i++) assertEquals(1, seen.get(i), "call " + call + ": index " + i + " of " + n + ", grain " + grain);
                if (call % 50 == 49) Thread.sleep(2); // longer than the helpers' poll: they park, and the next call wakes them
            }
        }
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

    @Test
    void parkedHelpersAreWokenAndCloseEndsTheirThreads() throws InterruptedException {
        Parallel parallel = new Parallel(2);
        String prefix = parallel.threadNamePrefix();
        Thread caller = Thread.currentThread();
        for (int round = 0; round < 5; round++) {
            Thread.sleep(5); // the helper polls for 0.2 ms, then parks
            Set<Thread> ran = ConcurrentHashMap.newKeySet();
            parallel.forRange(8, 1, (from, to) -> {
                ran.add(Thread.currentThread());
                try {
                    Thread.sleep(3); // slow chunks: a woken helper finds some left
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(ran.stream().anyMatch(t -> t != caller && t.getName().startsWith(prefix)),
                    "round " + round + ": no chunk ran on a helper after it parked (lost wake-up?): " + ran);
        }
        parallel.close();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (helperThreads(prefix) > 0 && System.nanoTime() < deadline) Thread.sleep(10);
        assertEquals(0, helperThreads(prefix), "helper threads alive 5 s after close");
    }

    private static long helperThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix) && t.isAlive()).count();
    }
}
