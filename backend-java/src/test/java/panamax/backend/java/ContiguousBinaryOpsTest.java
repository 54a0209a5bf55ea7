package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * {@code Ops.binary} on contiguous f32 views that start inside their storage (slices along the first axis, the path
 * that computes between the segments) gives each element's scalar result, and the same bits as the strided loop gives
 * for the same values read through a transposed view; large enough to split over the threads.
 */
class ContiguousBinaryOpsTest extends FreshBackendTest {
    @Test
    void slicedOperandsGiveTheScalarResultAndTheStridedLoopsBits() {
        Random random = new Random(3);
        int rows = 6, cols = 40_003; // [2, cols] slices: over the one-thread grain, and a partial last vector
        float[] x = new float[rows * cols], y = new float[rows * cols];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
            y[i] = (float) random.nextGaussian();
        }
        for (BinaryOp op : new BinaryOp[] {BinaryOp.ADD, BinaryOp.MUL, BinaryOp.MAXIMUM}) {
            try (Tensor a = backend.fromFloats(x, Shape.of(rows, cols), DType.F32);
                 Tensor b = backend.fromFloats(y, Shape.of(rows, cols), DType.F32);
                 Tensor as = ops.slice(a, 0, 3, 5);
                 Tensor bs = ops.slice(b, 0, 1, 3);
                 Tensor fast = ops.binary(op, as, bs);
                 Tensor asT = ops.transpose(as, 1, 0);
                 Tensor bsT = ops.transpose(bs, 1, 0);
                 Tensor strided = ops.binary(op, asT, bsT)) {
                float[] got = backend.toFloats(fast), viaStrided = backend.toFloats(strided);
                for (int r = 0; r < 2; r++) {
                    for (int c = 0; c < cols; c++) {
                        float want = scalar(op, x[(3 + r) * cols + c], y[(1 + r) * cols + c]);
                        assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(got[r * cols + c]), op + " at " + r + ", " + c);
                        assertEquals(Float.floatToRawIntBits(got[r * cols + c]), Float.floatToRawIntBits(viaStrided[c * 2 + r]), op + " strided");
                    }
                }
            }
        }
    }

    private static float scalar(BinaryOp op, float x, float y) {
        float[] a = {x};
        ElementwiseOps.applyBinary(op, a, new float[] {y}, 1);
        return a[0];
    }
}
