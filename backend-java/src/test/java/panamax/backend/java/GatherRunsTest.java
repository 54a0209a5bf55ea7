package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * takeAlongAxis with an index broadcast over the trailing axes, as the KV layouts remap a plane's columns ([rows, heads,
 * columns, width] by one source column per row and position): the backend copies whole runs there, consecutive source
 * columns as one copy, and must give what an element-by-element gather gives for every dtype, view and remap.
 */
class GatherRunsTest extends FreshBackendTest {

    @Test
    void columnRemapsEqualAnElementByElementGather() {
        SplittableRandom random = new SplittableRandom(11);
        DType[] dtypes = {DType.F32, DType.BF16, DType.U8, DType.I32};
        for (int trial = 0; trial < 400; trial++) {
            int rows = 1 + random.nextInt(4), heads = 1 + random.nextInt(3), columns = 1 + random.nextInt(9), width = 1 + random.nextInt(5);
            int positions = 1 + random.nextInt(9);
            DType dtype = dtypes[trial % dtypes.length];
            // x is a view of a wider store: extra columns before and after, or extra width (then its rows are not runs)
            int padColumns = random.nextInt(3), padWidth = trial % 5 == 4 ? 1 + random.nextInt(2) : 0;
            int storeColumns = columns + 2 * padColumns, storeWidth = width + padWidth;
            float[] store = new float[rows * heads * storeColumns * storeWidth];
            for (int i = 0; i < store.length; i++) store[i] = random.nextInt(200);
            int[] index = remap(random, rows, positions, columns);
            float[] expected = new float[rows * heads * positions * width];
            for (int r = 0; r < rows; r++) for (int h = 0; h < heads; h++) for (int p = 0; p < positions; p++) for (int w = 0; w < width; w++) {
                int c = index[r * positions + p] + padColumns;
                expected[((r * heads + h) * positions + p) * width + w] = store[((r * heads + h) * storeColumns + c) * storeWidth + w];
            }
            String what = dtype + " x [" + rows + ", " + heads + ", " + columns + ", " + width + "] of a store with " + padColumns
                    + " extra columns each side and " + padWidth + " extra width, index " + java.util.Arrays.toString(index);
            try (Tensor whole = input(store, Shape.of(rows, heads, storeColumns, storeWidth), dtype);
                 Tensor columnsView = ops.slice(whole, 2, padColumns, padColumns + columns);
                 Tensor x = ops.slice(columnsView, 3, 0, width);
                 Tensor idx = backend.fromInts(index, Shape.of(rows, 1, positions, 1), DType.I32);
                 Tensor full = ops.broadcastTo(idx, Shape.of(rows, heads, positions, width));
                 Tensor got = ops.takeAlongAxis(x, full, 2);
                 Tensor narrow = ops.takeAlongAxis(x, idx, 2)) {
                assertEquals(Shape.of(rows, heads, positions, width), got.shape(), what);
                assertArrayEquals(expected, values(got), what);
                assertArrayEquals(expected, values(narrow), what + " (index of extent 1 off the axis)");
            }
        }
    }

    @Test
    void anIndexOutOfRangeIsRefusedAndLeaksNothing() {
        try (Tensor x = backend.fromFloats(new float[2 * 3 * 4], Shape.of(2, 3, 4), DType.F32);
             Tensor idx = backend.fromInts(new int[] {0, 1, 2, 1, 2, 3}, Shape.of(2, 3, 1), DType.I32);
             Tensor full = ops.broadcastTo(idx, Shape.of(2, 3, 4))) {
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> ops.takeAlongAxis(x, full, 1).close());
            assertEquals("takeAlongAxis: index 3 out of range [0, 3) on axis 1 of [2, 3, 4]", e.getMessage());
        }
    }

    /** Source columns per (row, position): a block shifted by a row's padding, the same column repeated, or any columns. */
    private static int[] remap(SplittableRandom random, int rows, int positions, int columns) {
        int[] index = new int[rows * positions];
        for (int r = 0; r < rows; r++) {
            int kind = random.nextInt(3), shift = random.nextInt(columns);
            for (int p = 0; p < positions; p++) {
                index[r * positions + p] = switch (kind) {
                    case 0 -> Math.min(columns - 1, Math.max(0, p - shift));
                    case 1 -> shift;
                    default -> random.nextInt(columns);
                };
            }
        }
        return index;
    }

    private Tensor input(float[] values, Shape shape, DType dtype) {
        if (dtype.isFloating()) return backend.fromFloats(values, shape, dtype);
        int[] ints = new int[values.length];
        for (int i = 0; i < ints.length; i++) ints[i] = (int) values[i];
        return backend.fromInts(ints, shape, dtype);
    }

    private float[] values(Tensor t) {
        if (t.dtype().isFloating()) return backend.toFloats(t);
        int[] ints = backend.toInts(t);
        float[] out = new float[ints.length];
        for (int i = 0; i < ints.length; i++) out[i] = ints[i];
        return out;
    }
}
