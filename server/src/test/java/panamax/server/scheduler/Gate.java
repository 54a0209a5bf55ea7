package panamax.server.scheduler;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import panamax.engine.serve.RequestPlan;

/**
 * A row that holds the scheduler thread at its admission until {@link #open}: requests submitted
 * meanwhile wait in the queue together, so the next admission takes them as one cohort.
 */
final class Gate extends Recorder {
    private final CountDownLatch latch = new CountDownLatch(1);

    @Override
    public void onAdmitted(RequestPlan plan) {
        super.onAdmitted(plan);
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void open() {
        latch.countDown();
    }
}
