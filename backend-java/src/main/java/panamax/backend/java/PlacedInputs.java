package panamax.backend.java;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import panamax.api.tensor.DType;

/**
 * x rows placed for the lane-tile kernels ({@link panamax.backend.java.kernel.LaneTiles#placeRow}), made once per input
 * within one call of several products ({@code matmuls}, {@code quantizedMatmuls}): a layer's q, k and v projections,
 * or its gate and up ones, read one x, which each product used to load from its tensor and place again (a 512-token
 * prefill of the 1B preset spent 7–8 % of its time there). The inputs are borrowed and unchanged for the whole call, so
 * a copy made for one product holds for the others. One instance per call, used on the calling thread.
 */
final class PlacedInputs {
    /** The x rows as one product reads them: the same storage, place, strides and shape, placed for the same blocks and passes. */
    private record Key(Storage storage, long offset, long rowStride, long valueStride, int m, int k, DType dtype, int widest,
                       int passRows, int groupSize) {
    }

    /** x's rows placed, and their sums per group of {@code groupSize} values (null where the kernels take none). */
    record Rows(float[] placed, float[] groupSums) {
    }

    private final Map<Key, Rows> made = new HashMap<>();

    /**
     * The rows of x (m rows of k values from element {@code xOff}, x's last two strides) placed for kernels whose widest
     * block is {@code widest} and whose passes take {@code passRows} rows (and summed by groups of {@code groupSize}, 0 for
     * none): made by {@code make} the first time in this call, then the same arrays.
     */
    Rows rows(JavaTensor x, long xOff, int m, int k, int widest, int passRows, int groupSize, Supplier<Rows> make) {
        Key key = new Key(x.storage, xOff, x.strides[x.rank() - 2], x.strides[x.rank() - 1], m, k, x.dtype, widest, passRows, groupSize);
        return made.computeIfAbsent(key, unused -> make.get());
    }
}
