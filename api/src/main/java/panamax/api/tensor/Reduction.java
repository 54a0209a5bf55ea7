package panamax.api.tensor;

/** Reductions along one axis; floating sums accumulate in f32 or wider. */
public enum Reduction {
    SUM, MEAN, MAX, MIN
}
