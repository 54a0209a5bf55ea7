package panamax.api.model;

/** Which positions of a forward pass are projected to logits; prefill rarely needs all. */
public sealed interface LogitSelection {
    /** Every position. */
    record All() implements LogitSelection {
    }

    /** Only the last position of each row. */
    record Last() implements LogitSelection {
    }

    /** Positions {@code [start, end)}. */
    record Range(int start, int end) implements LogitSelection {
        public Range {
            if (start < 0 || end < start) throw new IllegalArgumentException("bad logit range [" + start + ", " + end + ")");
        }
    }

    LogitSelection ALL = new All();
    LogitSelection LAST = new Last();
}
