package panamax.backend.java;

import java.util.List;
import panamax.backend.java.kernel.Parallel;

/**
 * What is left of one matrix product once its x rows are prepared: its weight rows (or tiles) in {@code quads}, each
 * computed for every x row and stored into the product's output by the thread that computed it ({@code body}). A
 * product runs alone, or with others in one pass over the threads ({@link #runAll}): a mixture-of-experts step's 16
 * routed expert projections of 3 MiB each, or a layer's q, k and v, kept each core's stream short and paid the
 * dispatch and the end-of-product wait once per product. Which quads a thread takes changes no value: every output
 * element is summed in one order whatever part of the work computes it.
 *
 * @param quads    work units: weight rows or tiles in fours
 * @param minQuads the fewest quads worth one chunk (a chunk's x preparation and stores against its stream)
 * @param body     computes quads {@code [q0, q1)} for every x row and stores them
 */
record ProductWork(int quads, int minQuads, Quads body) {
    /** {@code -Dpanamax.products.together=false} runs the products of one call one after another, for A/B runs. */
    static final boolean TOGETHER = Boolean.parseBoolean(System.getProperty("panamax.products.together", "true"));

    /** Computes quads {@code [q0, q1)}; {@code buffer} is the running thread's scratch for this pass, {@code buffer[0]} null or reusable. */
    @FunctionalInterface
    interface Quads {
        void run(int q0, int q1, float[][] buffer);
    }

    /** Runs {@code work} over the threads. */
    static void run(Parallel par, ProductWork work) {
        par.forEvenSplit(work.quads, work.minQuads, () -> new float[1][], work.body::run);
    }

    /**
     * Runs every product of {@code works} in one pass: their quads laid end to end and cut into chunks as one
     * product's would be (at least the largest {@link #minQuads}), so a chunk may finish one product and start
     * the next.
     */
    static void runAll(Parallel par, List<ProductWork> works) {
        if (works.isEmpty()) return;
        if (works.size() == 1 || !TOGETHER) {
            for (ProductWork work : works) run(par, work);
            return;
        }
        int n = works.size();
        int[] start = new int[n + 1];
        int minQuads = 1;
        for (int i = 0; i < n; i++) {
            start[i + 1] = Math.addExact(start[i], works.get(i).quads);
            minQuads = Math.max(minQuads, works.get(i).minQuads);
        }
        par.forEvenSplit(start[n], minQuads, () -> new float[1][], (g0, g1, buffer) -> {
            int i = 0;
            while (start[i + 1] <= g0) i++;
            for (; i < n && start[i] < g1; i++) {
                int q0 = Math.max(g0, start[i]) - start[i];
                int q1 = Math.min(g1, start[i + 1]) - start[i];
                if (q0 < q1) works.get(i).body.run(q0, q1, buffer);
            }
        });
    }
}
