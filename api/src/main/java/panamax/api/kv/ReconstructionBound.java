package panamax.api.kv;

/**
 * How far a codec's decoded vector may be from the vector it encoded, as the codec's own maths
 * guarantees it: for every (token, head) vector {@code x} of finite values with magnitudes up to
 * 4096 arriving in the activation dtype, {@code ‖decode(encode(x)) − x‖₂ ≤ relative·‖x‖₂ + absolute·√headDim}.
 * A bound is a worst case over inputs, not a measured average; the codec conformance kit checks it.
 *
 * @param keyRelative   largest relative L2 error of a decoded key vector (0 for an exact codec)
 * @param valueRelative largest relative L2 error of a decoded value vector
 * @param absolute      an absolute error per element on top, for formats whose tiny values lose
 *                      relative precision (subnormals); 0 when the relative term covers them
 * @since 0.1
 */
public record ReconstructionBound(double keyRelative, double valueRelative, double absolute) {
    public ReconstructionBound {
        if (!(keyRelative >= 0) || !(valueRelative >= 0) || !(absolute >= 0)
                || Double.isInfinite(keyRelative + valueRelative + absolute)) {
            throw new IllegalArgumentException("a reconstruction bound is finite and non-negative, found keys "
                    + keyRelative + ", values " + valueRelative + ", absolute " + absolute);
        }
    }

    /** The same relative bound for keys and values, no absolute term. */
    public static ReconstructionBound relative(double relative) {
        return new ReconstructionBound(relative, relative, 0);
    }

    /** The bound of an encoding that returns every vector unchanged. */
    public static ReconstructionBound exact() {
        return relative(0);
    }

    /** The relative term for {@code role}. */
    public double relative(KvRole role) {
        return role == KvRole.KEY ? keyRelative : valueRelative;
    }

    /** The largest {@code ‖x̂ − x‖₂} allowed for a vector of norm {@code norm} and {@code headDim} elements. */
    public double allowedError(KvRole role, double norm, int headDim) {
        return relative(role) * norm + absolute * Math.sqrt(headDim);
    }
}
