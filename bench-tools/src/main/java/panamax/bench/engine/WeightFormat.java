package panamax.bench.engine;

import java.util.Locale;

/** How the benchmark's random weights are stored: bf16, or MLX affine 8- or 4-bit with group 64. */
enum WeightFormat {
    BF16("bf16", 16),
    Q8("q8", 8),
    Q4("q4", 4);

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
        };
    }

    /** Batch-8 decode and prefill targets, as a fraction of their floor (set by the FMA peak on dense models), every format. */
    static final double BATCHED_TARGET = 0.70;

    /** The batch-1 target of a mixture of experts against its active-bytes floor: 70 % for bf16 and 8-bit (its many small expert products stream below a dense matrix's rate). */
    double moeBatchOneTarget() {
        return this == Q4 ? 0.60 : 0.70;
    }

    static WeightFormat parse(String s) {
        for (WeightFormat f : values()) if (f.label.equals(s.trim().toLowerCase(Locale.ROOT))) return f;
        throw new IllegalArgumentException("--weights: expected a comma-separated list of bf16, q8, q4, found " + s);
    }
}
