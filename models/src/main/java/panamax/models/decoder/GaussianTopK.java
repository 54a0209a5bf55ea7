package panamax.models.decoder;

import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Reduction;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;

/**
 * Gemma 3n's activation sparsity: keeps the part of each row above {@code mean + std·Φ⁻¹(sparsity)}
 * (the cut-off that leaves the top {@code 1 − sparsity} of a Gaussian), i.e.
 * {@code relu(x − cutoff)}, with the population standard deviation over the last axis, as
 * transformers' {@code _gaussian_topk}. Immutable.
 */
final class GaussianTopK {
    private final float stdMultiplier;

    /** @param sparsity target fraction of zeros, in (0, 1) */
    GaussianTopK(double sparsity) {
        if (!(sparsity > 0 && sparsity < 1)) throw new IllegalArgumentException("sparsity must be in (0, 1), found " + sparsity);
        // torch evaluates Normal(0, 1).icdf(p) = erfinv(2p − 1)·√2 on a float32 tensor, each step rounded to
        // float; with erfinv itself correctly rounded this gives torch's multiplier bit for bit (0.95, 0.9, 0.8 checked)
        float x = 2f * (float) sparsity - 1f;
        float erfinv = (float) (inverseNormal((x + 1.0) / 2) / Math.sqrt(2));
        this.stdMultiplier = erfinv * (float) Math.sqrt(2);
    }

    float stdMultiplier() {
        return stdMultiplier;
    }

    /** {@code relu(x − (mean + std·multiplier))} over the last axis of {@code x} (borrowed). */
    Tensor apply(Ops ops, Tensor x) {
        int axis = x.rank() - 1;
        try (Tensor mean = ops.reduce(Reduction.MEAN, x, axis, true);
             Tensor centred = ops.sub(x, mean);
             Tensor squares = ops.unary(UnaryOp.SQUARE, centred);
             Tensor variance = ops.reduce(Reduction.MEAN, squares, axis, true);
             Tensor std = ops.unary(UnaryOp.SQRT, variance);
             Tensor spread = ops.mul(std, stdMultiplier);
             Tensor cutoff = ops.add(mean, spread);
             Tensor shifted = ops.sub(x, cutoff)) {
            return ops.binary(BinaryOp.MAXIMUM, shifted, 0.0);
        }
    }

    /**
     * Φ⁻¹(p), the standard normal quantile, by Wichura's algorithm AS 241 (PPND16), accurate to about
     * 1e-16 relative.
     */
    static double inverseNormal(double p) {
        if (!(p > 0 && p < 1)) throw new IllegalArgumentException("probability must be in (0, 1), found " + p);
        double q = p - 0.5;
        if (Math.abs(q) <= 0.425) {
            double r = 0.180625 - q * q;
            return q * (((((((2509.0809287301226727 * r + 33430.575583588128105) * r + 67265.770927008700853) * r
                    + 45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r + 133.14166789178437745) * r
                    + 3.387132872796366608)
                    / (((((((5226.495278852545925 * r + 28729.085735721942674) * r + 39307.89580009271061) * r
                    + 21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r + 42.313330701600911252) * r + 1.0);
        }
        double r = q < 0 ? p : 1 - p;
        r = Math.sqrt(-Math.log(r));
        double value;
        if (r <= 5) {
            r -= 1.6;
            value = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r
                    + 1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r + 4.6303378461565452959) * r
                    + 1.42343711074968357734)
                    / (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r
                    + 0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r + 2.05319162663775882187) * r + 1.0);
        } else {
            r -= 5;
            value = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r
                    + 0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r + 5.4637849111641143699) * r
                    + 6.6579046435011037772)
                    / (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r
                    + 7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r + 0.59983220655588793769) * r + 1.0);
        }
        return q < 0 ? -value : value;
    }
}
