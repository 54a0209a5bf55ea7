package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.backend.java.kernel.Bf16Tiles;
import panamax.backend.java.kernel.Parallel;

/**
 * bf16 weights repacked into tiles of one row per lane ({@link Bf16Tiles}): products agree with a float64 reference,
 * every x row gets the same bits alone, in any batch and in any part of the tiles, and the backend repacks only a
 * caller's (loaded) weight segment, once.
 */
class Bf16TilesTest {
    private final Random random = new Random(29);

    private float[] gaussian(int n) {
        return GaussianFloats.of(random, n);
    }

    /** n × k bf16 rows (row stride k·2 bytes) of Gaussian values, and the values they hold. */
    private static MemorySegment bf16Rows(Arena arena, float[] values) {
        MemorySegment s = arena.allocate(2L * values.length, 64);
        for (int i = 0; i < values.length; i++) {
            short bits = (short) (Float.floatToRawIntBits(values[i]) >>> 16);
            s.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, bits);
            values[i] = Float.intBitsToFloat(bits << 16);
        }
        return s;
    }

    @Test
    void tilesMatchAFloat64ProductAndGiveEachRowTheSameBitsInAnyBatch() {
        VectorWidth.requirePath(Bf16Tiles.supports(256), "the repacked bf16 tiles", 512);
        // k = 262: rows of an odd number of words (131)
        for (int k : new int[] {384, 262}) checkTiles(53, k, 21);
    }

    private void checkTiles(int n, int k, int rows) {
        try (Arena arena = Arena.ofConfined(); Parallel one = new Parallel(1)) {
            float[] w = gaussian(n * k);
            MemorySegment ws = bf16Rows(arena, w);
            float[] x = gaussian(rows * k);
            try (Bf16Tiles tiles = Bf16Tiles.repack(one, ws, 0, 2L * k, n, k)) {
                int width = tiles.tiles() * Bf16Tiles.rowsPerTile();
                float[] batch = new float[rows * width];
                tiles.multiply(tiles.place(x, rows), rows, 0, tiles.tiles(), batch, width);
                for (int r = 0; r < rows; r++) {
                    for (int j = 0; j < n; j++) {
                        double want = 0, size = 0;
                        for (int i = 0; i < k; i++) {
                            want += (double) x[r * k + i] * w[j * k + i];
                            size += Math.abs((double) x[r * k + i] * w[j * k + i]);
                        }
                        assertEquals(want, batch[r * width + j], 1e-6 * size + 1e-6, "k " + k + ": x row " + r + ", column " + j);
                    }
                }
                for (int m : new int[] {1, 2, 3, 6, 9, 12, 16, 21}) {
                    float[] placed = tiles.place(x, m);
                    float[] alone = new float[m * width];
                    tiles.multiply(placed, m, 0, tiles.tiles(), alone, width);
                    int lanes = Bf16Tiles.rowsPerTile();
                    for (int t = 0; t < tiles.tiles(); t++) {
                        float[] part = new float[m * lanes];
                        tiles.multiply(placed, m, t, t + 1, part, lanes);
                        for (int r = 0; r < m; r++) {
                            for (int l = 0; l < lanes && t * lanes + l < n; l++) {
                                int want = Float.floatToRawIntBits(batch[r * width + t * lanes + l]);
                                assertEquals(want, Float.floatToRawIntBits(alone[r * width + t * lanes + l]), "k " + k + ": x row " + r + " in a batch of " + m);
                                assertEquals(want, Float.floatToRawIntBits(part[r * lanes + l]), "k " + k + ": x row " + r + ", one tile at a time");
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void theBackendRepacksALoadedWeightOnceAndNotItsOwnBuffers() {
        VectorWidth.requirePath(Bf16Tiles.supports(256), "the repacked bf16 tiles", 512);
        Backend backend = new JavaBackendProvider().create(BackendOptions.defaults());
        int n = 40, k = 256;
        try (Arena arena = Arena.ofShared()) {
            float[] values = gaussian(n * k);
            MemorySegment ws = bf16Rows(arena, values);
            Ops ops = backend.ops();
            long mappedBefore = backend.memoryStats().mappedBytes();
            try (Tensor loaded = backend.fromSegment(ws, Shape.of(n, k), DType.BF16);
                 Tensor own = backend.fromFloats(values, Shape.of(n, k), DType.BF16);
                 Tensor x = backend.fromFloats(gaussian(3 * k), Shape.of(3, k), DType.F32)) {
                long segmentBytes = backend.memoryStats().mappedBytes() - mappedBefore;
                float[] first = product(backend, x, loaded);
                long repacked = backend.memoryStats().mappedBytes() - mappedBefore - segmentBytes;
                assertTrue(repacked > 0, "the loaded weight's tiles count as mapped bytes");
                assertArrayEquals(first, product(backend, x, loaded), "the second product, from the kept tiles");
                assertEquals(repacked, backend.memoryStats().mappedBytes() - mappedBefore - segmentBytes, "the tiles are made once");
                for (int r = 0; r < 3; r++) {
                    try (Tensor row = ops.slice(x, 0, r, r + 1)) {
                        assertArrayEquals(Arrays.copyOfRange(first, r * n, (r + 1) * n), product(backend, row, loaded), "x row " + r + " alone and in the batch");
                    }
                }
                float[] fromOwn = product(backend, x, own);
                assertEquals(repacked, backend.memoryStats().mappedBytes() - mappedBefore - segmentBytes, "the backend's own buffer is not repacked");
                for (int i = 0; i < first.length; i++) assertEquals(first[i], fromOwn[i], 1e-4 * (1 + Math.abs(first[i])), "the same weights either way, at " + i);
            }
            assertEquals(mappedBefore, backend.memoryStats().mappedBytes(), "freed weights drop their tiles");
            assertEquals(0, backend.memoryStats().activeBytes(), "no storage leaked");
        } finally {
            backend.close();
        }
    }

    @Test
    void aWeightWhoseFirstProductHasOneRowKeepsTheRowKernelsForGood() {
        VectorWidth.requirePath(Bf16Tiles.supports(256), "the repacked bf16 tiles", 512);
        Backend backend = new JavaBackendProvider().create(BackendOptions.defaults());
        int n = 24, k = 256;
        try (Arena arena = Arena.ofShared()) {
            float[] values = gaussian(n * k);
            MemorySegment ws = bf16Rows(arena, values);
            try (Tensor loaded = backend.fromSegment(ws, Shape.of(n, k), DType.BF16);
                 Tensor x = backend.fromFloats(gaussian(4 * k), Shape.of(4, k), DType.F32);
                 Tensor first = backend.ops().slice(x, 0, 0, 1)) {
                long mapped = backend.memoryStats().mappedBytes();
                float[] alone = product(backend, first, loaded);
                float[] batch = product(backend, x, loaded);
                assertEquals(mapped, backend.memoryStats().mappedBytes(), "no tiles after a first product of one row, nor later");
                assertArrayEquals(alone, Arrays.copyOf(batch, n), "x row 0 alone and in the batch, through the row kernels");
            }
        } finally {
            backend.close();
        }
    }

    @Test
    void productsRunTogetherGiveEachTheBitsItGetsAlone() {
        VectorWidth.requirePath(Bf16Tiles.supports(256), "the repacked bf16 tiles", 512);
        Backend backend = new JavaBackendProvider().create(BackendOptions.defaults());
        int k = 256;
        int[] rows = {40, 24, 300};
        try (Arena arena = Arena.ofShared()) {
            Ops ops = backend.ops();
            Tensor[] weights = new Tensor[rows.length];
            for (int i = 0; i < rows.length; i++) weights[i] = backend.fromSegment(bf16Rows(arena, gaussian(rows[i] * k)), Shape.of(rows[i], k), DType.BF16);
            // x and other: five rows each of one storage (a product placing x once for several must tell them apart)
            try (Tensor both = backend.fromFloats(gaussian(10 * k), Shape.of(10, k), DType.F32);
                 Tensor x = ops.slice(both, 0, 0, 5);
                 Tensor other = ops.slice(both, 0, 5, 10);
                 Tensor one = ops.slice(x, 0, 2, 3);
                 Tensor f32 = backend.fromFloats(gaussian(70 * k), Shape.of(70, k), DType.F32)) {
                long mapped = backend.memoryStats().mappedBytes();
                product(backend, x, weights[0]); // tiles for the first and third weights (a prefill met them first)
                product(backend, x, weights[2]);
                product(backend, one, weights[1]); // row kernels for good for the second
                assertTrue(backend.memoryStats().mappedBytes() > mapped, "the first weight took tiles");
                for (Tensor xs : new Tensor[] {one, x}) {
                    Tensor second = xs == x ? other : xs;
                    java.util.List<Tensor> left = java.util.List.of(xs, second, xs, xs, second);
                    java.util.List<Tensor> right = new java.util.ArrayList<>();
                    for (Tensor w : weights) right.add(ops.transpose(w, 1, 0));
                    right.add(ops.transpose(f32, 1, 0));
                    right.add(ops.transpose(weights[2], 1, 0));
                    java.util.List<Tensor> together = ops.matmuls(left, right);
                    try {
                        for (int i = 0; i < right.size(); i++) {
                            try (Tensor alone = ops.matmul(left.get(i), right.get(i))) {
                                assertArrayEquals(backend.toFloats(alone), backend.toFloats(together.get(i)),
                                        "product " + i + " of " + left.get(i).shape() + " together and alone");
                            }
                        }
                    } finally {
                        together.forEach(Tensor::close);
                        right.forEach(Tensor::close);
                    }
                }
            } finally {
                for (Tensor w : weights) w.close();
            }
            assertEquals(0, backend.memoryStats().activeBytes(), "no storage leaked");
        } finally {
            backend.close();
        }
    }

    private static float[] product(Backend backend, Tensor x, Tensor w) {
        Ops ops = backend.ops();
        try (Tensor wt = ops.transpose(w, 1, 0); Tensor y = ops.matmul(x, wt)) {
            return backend.toFloats(y);
        }
    }
}
