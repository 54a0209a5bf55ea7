package panamax.bench.engine;

import java.util.Locale;

/**
 * How the benchmark's random weights are stored: bf16, or MLX affine codes of 2 to 8 bits with group 64. The issue's
 * batch-1 targets name bf16, 8 and 4 bits; the other widths are measured against the same floors with no target.
 */
enum WeightFormat {
    BF16("bf16", 16),
    Q8("q8", 8),
    Q4("q4", 4),
    Q6("q6", 6),
    Q5("q5", 5),
    Q3("q3", 3),
    Q2("q2", 2);

    /** MLX's default group size. */
    static final int GROUP_SIZE = 64;

    final String label;
    final int bits;

    WeightFormat(String label, int bits) {
        this.label = label;
        this.bits = bits;
    }

    boolean quantized() {
        return this != BF16;
    }

    /** Bytes a dense [out, in] matrix takes in this format: packed codes plus bf16 scales and biases per group. */
    long matrixBytes(long out, long in) {
        if (!quantized()) return out * in * 2;
        return out * in * bits / 8 + 2 * out * (in / GROUP_SIZE) * 2;
    }

    /** The batch-1 decode target, as a fraction of the bytes floor (the targets are listed in docs/performance.md). */
    double batchOneTarget() {
        return switch (this) {
            case BF16 -> 0.85;
            case Q8 -> 0.80;
            case Q4 -> 0.75;
            case Q6, Q5, Q3, Q2 -> 0; // none set
        };
    }

    /** Batch-8 decode and prefill targets, as a fraction of their floor (set by the FMA peak on dense models), every format. */
    static final double BATCHED_TARGET = 0.70;

    /** The batch-1 target of a mixture of experts against its active-bytes floor: 70 % for bf16 and 8-bit (its many small expert products stream below a dense matrix's rate). */
    double moeBatchOneTarget() {
        return switch (this) {
            case BF16, Q8 -> 0.70;
            case Q4 -> 0.60;
            case Q6, Q5, Q3, Q2 -> 0; // none set
        };
    }

    /** The format of MLX affine codes of {@code bits}, or null where the benchmark has none. */
    static WeightFormat ofBits(int bits) {
        for (WeightFormat f : values()) if (f.quantized() && f.bits == bits) return f;
        return null;
    }

    static WeightFormat parse(String s) {
        for (WeightFormat f : values()) if (f.label.equals(s.trim().toLowerCase(Locale.ROOT))) return f;
        throw new IllegalArgumentException("--weights: expected a comma-separated list of bf16, q8, q6, q5, q4, q3, q2, found " + s);
    }
}
