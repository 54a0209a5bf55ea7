package panamax.kv.codecs.turboquant;

import java.util.ArrayList;
import java.util.List;
import panamax.api.error.InvalidParameterException;
import panamax.api.kv.CodecShape;
import panamax.api.kv.PlaneSpec;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.DType;

/**
 * Resolved TurboQuant settings for one head dimension.
 *
 * <p>Head dimensions that are not powers of two are zero-padded to the next power of two (at least
 * 64) before the rotation: the padded vector has the same norm, its rotation is a randomized
 * Hadamard transform of the padded space, and its coordinates follow the Beta-like law of that
 * dimension exactly, so the codebook of the padded dimension is optimal for it. The price is
 * storage: codes are kept for every padded coordinate (80 → 128 stores 1.6× the codes). The
 * floor of 64 keeps every plane a whole number of 32-code groups, which the packed format needs.
 *
 * @param keyBits   bits per key coordinate, QJL bit included when {@code qjl}
 * @param valueBits bits per value coordinate
 * @param qjl       when true, keys spend {@code keyBits − 1} bits on the codebook and 1 bit on the
 *                  sign of a Gaussian projection of the residual (the paper's TurboQuant-prod)
 * @param seed      the user's seed, mixed with the model seed and the layer into every random transform
 * @param headDim   features per head
 */
record TurboQuantConfig(int keyBits, int valueBits, boolean qjl, long seed, int headDim) {

    TurboQuantConfig {
        if (headDim <= 0) throw new IllegalArgumentException("head dim must be positive, found " + headDim);
        if (qjl && keyBits == 8) {
            throw new InvalidParameterException("turboquant key_bits (with qjl=true)", keyBits, "1, 2, 3, 4");
        }
    }

    static TurboQuantConfig from(PluginParams resolved, int headDim) {
        return new TurboQuantConfig(resolved.getInt("key_bits"), resolved.getInt("value_bits"),
                Boolean.parseBoolean(resolved.get("qjl")), Long.parseLong(resolved.get("seed")), headDim);
    }

    /** The rotated (padded) dimension: the next power of two, at least 64. */
    int paddedDim() {
        return Math.max(64, nextPowerOfTwo(headDim));
    }

    /** Bits of the key codebook codes (0 when QJL takes every key bit). */
    int keyCodeBits() {
        return qjl ? keyBits - 1 : keyBits;
    }

    CodecShape shape() {
        int n = paddedDim();
        List<PlaneSpec> keys = new ArrayList<>();
        if (keyCodeBits() > 0) keys.add(new PlaneSpec("codes", n * keyCodeBits() / 32, DType.U32));
        keys.add(new PlaneSpec("norm", 1, DType.F32));
        if (qjl) {
            keys.add(new PlaneSpec("qjl", n / 32, DType.U32));
            keys.add(new PlaneSpec("residual_norm", 1, DType.F32));
        }
        List<PlaneSpec> values = List.of(
                new PlaneSpec("codes", n * valueBits / 32, DType.U32),
                new PlaneSpec("norm", 1, DType.F32));
        return new CodecShape(headDim, keys, values);
    }

    private static int nextPowerOfTwo(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }
}
