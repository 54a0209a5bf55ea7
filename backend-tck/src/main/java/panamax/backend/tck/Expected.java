package panamax.backend.tck;

/**
 * A float64 reference result and, per element, the magnitude its tolerance scales with (see the
 * tolerance rule in {@link BackendTck}). Immutable by convention.
 *
 * @param value     the float64 reference
 * @param magnitude same size as {@code value}: Σ|terms| of sums, input sizes of elementwise ops,
 *                  plus first-order bounds of error that f32 math cannot avoid
 */
public record Expected(Ref value, double[] magnitude) {
    public Expected {
        if (magnitude.length != value.size()) {
            throw new IllegalArgumentException("magnitude: expected " + value.size() + " values, found " + magnitude.length);
        }
    }
}
