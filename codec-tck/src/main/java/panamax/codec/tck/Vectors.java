package panamax.codec.tck;

import java.util.Random;

/**
 * Keys and values to encode, one (token, head) vector at a time, drawn from a seed: Gaussian rows
 * at scales from 1e-3 to 30, rows whose elements are all equal, all-zero rows, and rows with one
 * outlier a hundred times the rest. Every magnitude stays within 4096, the domain a
 * {@link panamax.api.kv.ReconstructionBound} covers.
 */
final class Vectors {
    enum Kind { GAUSSIAN, ALL_EQUAL, ZERO, OUTLIER }

    private Vectors() {
    }

    /** {@code count} vectors of {@code dim} elements, row after row; each vector's kind is drawn too unless {@code kind} is given. */
    static float[] draw(long seed, int count, int dim, Kind kind) {
        Random r = new Random(seed);
        float[] out = new float[count * dim];
        for (int v = 0; v < count; v++) {
            Kind k = kind != null ? kind : Kind.values()[r.nextInt(Kind.values().length)];
            double scale = Math.pow(10, -3 + 4.5 * r.nextDouble());
            int base = v * dim;
            switch (k) {
                case GAUSSIAN -> {
                    for (int d = 0; d < dim; d++) out[base + d] = (float) (scale * r.nextGaussian());
                }
                case ALL_EQUAL -> java.util.Arrays.fill(out, base, base + dim, (float) (r.nextBoolean() ? scale : -scale));
                case ZERO -> {
                }
                case OUTLIER -> {
                    for (int d = 0; d < dim; d++) out[base + d] = (float) (scale * r.nextGaussian());
                    out[base + r.nextInt(dim)] = (float) (100 * scale * (r.nextBoolean() ? 1 : -1));
                }
            }
            for (int d = 0; d < dim; d++) out[base + d] = Math.max(-4096f, Math.min(4096f, out[base + d]));
        }
        return out;
    }
}
