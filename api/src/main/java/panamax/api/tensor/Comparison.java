package panamax.api.tensor;

/** Elementwise comparisons of two broadcast arguments; results are BOOL. */
public enum Comparison {
    EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL
}
