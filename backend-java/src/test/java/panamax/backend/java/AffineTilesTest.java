package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.AffineTiles;
import panamax.backend.java.kernel.Parallel;
import panamax.backend.java.kernel.QuantMatVec;
import panamax.backend.java.kernel.RowScales;

/**
 * Affine weights repacked into tiles of one row per lane ({@link AffineTiles}): products agree with the dequantizing
 * kernel, every x row gets the same bits alone, in any batch and in any part of the tiles, and the backend keeps a
 * repacked form only while nothing writes into the weights' storage.
 */
class AffineTilesTest {
    private final Random random = new Random(23);

    private float[] gaussian(int n) {
        return GaussianFloats.of(random, n);
    }

    @Test
    void tilesMatchTheDequantizingKernelAndGiveEachRowTheSameBitsInAnyBatch() {
        VectorWidth.requirePath(AffineTiles.supports(8, 256, 64), "the repacked affine tiles", 512);
        int checked = 0;
        try (Arena arena = Arena.ofConfined(); Parallel one = new Parallel(1)) {
            // n = 37 leaves a partial last tile (and, at 16 lanes, tiles that are not a multiple of four); 71 x rows take
            // decoded groups (five blocks of twelve rows, then eight, two and one), the batches below the register blocks
            // (eight, four, two and one rows: up to 63) or decoded groups again (67: twelve, then four, two, one), against
            // one or two tiles; k = 96 at group 32: three groups, and 2-bit tiles of six words
            for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
                for (int[] kg : new int[][] {{512, 32}, {512, 64}, {512, 128}, {96, 32}}) {
                    int k = kg[0], gs = kg[1], n = 37, rows = 71;
                    if (!AffineTiles.supports(bits, k, gs)) continue;
                    QuantizedRows q = QuantizedRows.of(arena, n, k, bits, gs, this::gaussian);
                    float[] x = gaussian(rows * k);
                    float[] sums = QuantMatVec.groupSums(x, rows, k, gs);
                    try (AffineTiles tiles = AffineTiles.repack(one, q.packed(), 0, q.rowBytes(), n, k, bits, gs, q.params())) {
                        int width = tiles.tiles() * AffineTiles.rowsPerTile();
                        float[] batch = new float[rows * width];
                        tiles.multiply(tiles.place(x, rows), sums, rows, 0, tiles.tiles(), batch, width);
                        float[] slow = new float[rows * n];
                        QuantMatVec.generic(q.packed(), 0, q.rowBytes(), bits, gs, k, q.params(), x, rows, 0, n, slow, n);
                        String what = bits + "-bit, group " + gs + ", k " + k;
                        for (int r = 0; r < rows; r++) {
                            for (int j = 0; j < n; j++) {
                                float want = slow[r * n + j];
                                float got = batch[r * width + j];
                                assertEquals(want, got, 1e-5 * Math.sqrt(k) * (8 + Math.abs(want)), what + ", x row " + r + ", column " + j);
                            }
                        }
                        for (int m : new int[] {1, 2, 3, 5, 8, 11, 12, 19, 63, 67}) {
                            // the first m rows as a batch of their own, and cut into single tiles
                            float[] alone = new float[m * width];
                            float[] placed = tiles.place(x, m);
                            tiles.multiply(placed, sums, m, 0, tiles.tiles(), alone, width);
                            float[] parts = new float[m * width];
                            for (int t = 0; t < tiles.tiles(); t++) {
                                float[] part = new float[m * AffineTiles.rowsPerTile()];
                                tiles.multiply(placed, sums, m, t, t + 1, part, AffineTiles.rowsPerTile());
                                for (int r = 0; r < m; r++) {
                                    System.arraycopy(part, r * AffineTiles.rowsPerTile(), parts, r * width + t * AffineTiles.rowsPerTile(),
                                            AffineTiles.rowsPerTile());
                                }
                            }
                            for (int r = 0; r < m; r++) {
                                for (int j = 0; j < n; j++) {
                                    int want = Float.floatToRawIntBits(batch[r * width + j]);
                                    assertEquals(want, Float.floatToRawIntBits(alone[r * width + j]), what + ": x row " + r + " in a batch of " + m);
                                    assertEquals(want, Float.floatToRawIntBits(parts[r * width + j]), what + ": x row " + r + ", one tile at a time");
                                }
                            }
                        }
                        checked++;
                    }
                }
            }
        }
        assertTrue(checked >= 18, "formats checked: " + checked);
    }

    @Test
    void aPrefillsPassesEvenedOutOrTheLastOneShortGiveEachRowTheBitsItGetsAlone() {
        VectorWidth.requirePath(AffineTiles.supports(8, 256, 64), "the repacked affine tiles", 512);
        try (Arena arena = Arena.ofConfined(); Parallel one = new Parallel(1)) {
            for (int bits : new int[] {2, 4, 8}) {
                int k = 2048, n = 40, gs = 64, most = 0; // passes of 120 rows at most
                QuantizedRows q = QuantizedRows.of(arena, n, k, bits, gs, this::gaussian);
                try (AffineTiles tiles = AffineTiles.repack(one, q.packed(), 0, q.rowBytes(), n, k, bits, gs, q.params())) {
                    most = tiles.passRows();
                    // one whole pass and five rows, which no evening out can spread (decoded groups, then the register
                    // blocks); two whole passes and five rows, evened out into passes of 64 rows or more, all decoded
                    assertEquals(120, most, "rows of a pass at k = " + k);
                    for (int rows : new int[] {most + 5, 2 * most + 5}) {
                        int pass = tiles.passRows(rows), width = tiles.tiles() * AffineTiles.rowsPerTile();
                        if (rows == most + 5) assertEquals(most, pass, "passes of " + rows + " rows");
                        else {
                            assertTrue(pass < most && (rows % pass == 0 || rows % pass >= 64), "passes of " + pass + " for " + rows + " rows");
                        }
                        float[] x = gaussian(rows * k);
                        float[] sums = QuantMatVec.groupSums(x, rows, k, gs);
                        float[] batch = new float[rows * width];
                        float[] placed = tiles.place(x, rows);
                        tiles.multiply(placed, sums, rows, 0, tiles.tiles(), batch, width);
                        // the same rows a pass at a time, as a product's threads take them
                        float[] byPass = new float[rows * width];
                        for (int r0 = 0; r0 < rows; r0 += pass) {
                            int r1 = Math.min(rows, r0 + pass);
                            float[] part = new float[(r1 - r0) * width];
                            tiles.multiply(placed, sums, rows, r0, r1, 0, tiles.tiles(), part, width);
                            System.arraycopy(part, 0, byPass, r0 * width, part.length);
                        }
                        for (int r = 0; r < rows; r++) {
                            float[] alone = new float[width];
                            tiles.multiply(Arrays.copyOfRange(x, r * k, (r + 1) * k), Arrays.copyOfRange(sums, r * (k / gs), (r + 1) * (k / gs)), 1, 0,
                                    tiles.tiles(), alone, width);
                            for (int j = 0; j < n; j++) {
                                int want = Float.floatToRawIntBits(alone[j]);
                                assertEquals(want, Float.floatToRawIntBits(batch[r * width + j]), bits + "-bit: x row " + r + " of " + rows + ", column " + j);
                                assertEquals(want, Float.floatToRawIntBits(byPass[r * width + j]), bits + "-bit: x row " + r + " of " + rows + ", its pass alone, column " + j);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void longRowsRunTheirGroupsInSlicesAndTheirShortPassesInChunksAndGiveEachRowTheBitsItGetsAlone() {
        VectorWidth.requirePath(AffineTiles.supports(8, 256, 64), "the repacked affine tiles", 512);
        try (Arena arena = Arena.ofConfined(); Parallel one = new Parallel(1)) {
            // k = 4096: a decoded pass holds 120 rows and runs its groups in two slices of 1 MiB of x (34 and 30 groups of
            // 64, 17 and 15 of 128); 70 rows take decoded groups, 40 rows the register blocks in chunks of 256 KiB (16 rows)
            for (int bits : new int[] {4, 8}) {
                for (int gs : new int[] {64, 128}) {
                    int k = 4096, n = 37;
                    QuantizedRows q = QuantizedRows.of(arena, n, k, bits, gs, this::gaussian);
                    try (AffineTiles tiles = AffineTiles.repack(one, q.packed(), 0, q.rowBytes(), n, k, bits, gs, q.params())) {
                        assertTrue(tiles.passRows() >= 70, "a pass of " + tiles.passRows() + " rows at k = " + k);
                        int width = tiles.tiles() * AffineTiles.rowsPerTile();
                        for (int rows : new int[] {70, 40}) {
                            float[] x = gaussian(rows * k);
                            float[] sums = QuantMatVec.groupSums(x, rows, k, gs);
                            float[] batch = new float[rows * width];
                            tiles.multiply(tiles.place(x, rows), sums, rows, 0, tiles.tiles(), batch, width);
                            for (int r = 0; r < rows; r++) {
                                float[] alone = new float[width];
                                tiles.multiply(Arrays.copyOfRange(x, r * k, (r + 1) * k), Arrays.copyOfRange(sums, r * (k / gs), (r + 1) * (k / gs)),
                                        1, 0, tiles.tiles(), alone, width);
                                for (int j = 0; j < n; j++) {
                                    assertEquals(Float.floatToRawIntBits(alone[j]), Float.floatToRawIntBits(batch[r * width + j]),
                                            bits + "-bit, group " + gs + ": x row " + r + " of " + rows + ", column " + j);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void codesNarrowerThanTheirTilesAreWidenedAndGiveTheBitsOfTheWiderCodes() {
        VectorWidth.requirePath(AffineTiles.supports(8, 256, 64), "the repacked affine tiles", 512);
        try (Arena arena = Arena.ofConfined(); Parallel one = new Parallel(1)) {
            // 3-bit codes go in 4-bit tiles, 5- and 6-bit ones in 8-bit tiles: the same codes packed at the tiles' width by
            // hand, with the same parameters, must give every output the same bits
            for (int[] widths : new int[][] {{3, 4}, {5, 8}, {6, 8}}) {
                int bits = widths[0], wide = widths[1], k = 320, n = 37, gs = 32, rows = 9;
                assertEquals(wide, AffineTiles.tileBits(bits), bits + "-bit codes' tile width");
                QuantizedRows q = QuantizedRows.of(arena, n, k, bits, gs, this::gaussian);
                int wideWords = k * wide / 32;
                MemorySegment widened = arena.allocate(4L * n * wideWords);
                int[] codes = new int[k];
                for (int r = 0; r < n; r++) {
                    AffineCodes.unpack(q.packed(), r * q.rowBytes(), bits, 0, k, codes);
                    AffineCodes.packRow(codes, k, wide, widened, (long) r * wideWords);
                }
                float[] x = gaussian(rows * k);
                float[] sums = QuantMatVec.groupSums(x, rows, k, gs);
                try (AffineTiles narrow = AffineTiles.repack(one, q.packed(), 0, q.rowBytes(), n, k, bits, gs, q.params());
                     AffineTiles byHand = AffineTiles.repack(one, widened, 0, 4L * wideWords, n, k, wide, gs, q.params())) {
                    assertEquals(byHand.bytes(), narrow.bytes(), bits + "-bit codes take the bytes of " + wide + "-bit tiles");
                    int width = narrow.tiles() * AffineTiles.rowsPerTile();
                    for (int m : new int[] {1, 2, 8, 9}) {
                        float[] want = new float[m * width];
                        float[] got = new float[m * width];
                        byHand.multiply(byHand.place(x, m), sums, m, 0, byHand.tiles(), want, width);
                        narrow.multiply(narrow.place(x, m), sums, m, 0, narrow.tiles(), got, width);
                        for (int i = 0; i < want.length; i++) {
                            assertEquals(Float.floatToRawIntBits(want[i]), Float.floatToRawIntBits(got[i]),
                                    bits + "-bit codes, " + m + " x rows: output " + i);
                        }
                    }
                }
            }
        }
    }

    /** The value nearest x that bf16 holds (ties to even), as f32. */
    private static float bf16(float x) {
        int bits = Float.floatToRawIntBits(x);
        return Float.intBitsToFloat((bits + 0x7fff + ((bits >>> 16) & 1)) & 0xffff0000);
    }

    /** {@code params} declaring its values bf16 ({@link RowScales#bf16}), whether or not they are. */
    private static RowScales declaredBf16(RowScales params) {
        return new RowScales() {
            @Override
            public void load(int row, float[] scales, float[] biases) {
                params.load(row, scales, biases);
            }

            @Override
            public boolean bf16() {
                return true;
            }
        };
    }

    @Test
    void bf16ParametersArePackedInHalfTheBytesAndGiveTheBitsOfF32Ones() {
        VectorWidth.requirePath(AffineTiles.supports(8, 256, 64), "the repacked affine tiles", 512);
        int lanes = AffineTiles.rowsPerTile();
        try (Arena arena = Arena.ofConfined(); Parallel one = new Parallel(1)) {
            for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
                for (int gs : new int[] {32, 64}) {
                    int k = 512, n = 37, rows = 71, groups = k / gs;
                    if (!AffineTiles.supports(bits, k, gs)) continue;
                    QuantizedRows q = QuantizedRows.of(arena, n, k, bits, gs, this::gaussian);
                    for (int i = 0; i < q.scales().length; i++) {
                        q.scales()[i] = bf16(q.scales()[i]);
                        q.biases()[i] = bf16(q.biases()[i]);
                    }
                    RowScales f32 = q.params();
                    RowScales packed = declaredBf16(f32);
                    float[] x = gaussian(rows * k);
                    float[] sums = QuantMatVec.groupSums(x, rows, k, gs);
                    try (AffineTiles wide = AffineTiles.repack(one, q.packed(), 0, q.rowBytes(), n, k, bits, gs, f32);
                         AffineTiles half = AffineTiles.repack(one, q.packed(), 0, q.rowBytes(), n, k, bits, gs, packed)) {
                        String what = bits + "-bit, group " + gs;
                        long tileRows = (long) wide.tiles() * lanes;
                        assertEquals(AffineTiles.matrixBytes(n, k, bits, gs, false), wide.bytes(), what + ": f32 parameters' bytes");
                        assertEquals(wide.bytes() - 4 * tileRows * groups, half.bytes(), what + ": bf16 parameters take half the parameter bytes");
                        int width = wide.tiles() * lanes;
                        for (int m : new int[] {1, 2, 3, 8, 19, 71}) {
                            float[] placed = wide.place(x, m);
                            float[] want = new float[m * width];
                            float[] got = new float[m * width];
                            wide.multiply(placed, sums, m, 0, wide.tiles(), want, width);
                            half.multiply(placed, sums, m, 0, half.tiles(), got, width);
                            for (int i = 0; i < want.length; i++) {
                                assertEquals(Float.floatToRawIntBits(want[i]), Float.floatToRawIntBits(got[i]),
                                        what + ", " + m + " x rows: output " + i + " with packed bf16 parameters");
                            }
                        }
                    }
                }
            }
            // parameters declared bf16 that are not: refused, naming the row
            QuantizedRows q = QuantizedRows.of(arena, 20, 256, 8, 64, this::gaussian);
            for (int i = 0; i < q.scales().length; i++) {
                q.scales()[i] = bf16(q.scales()[i]);
                q.biases()[i] = bf16(q.biases()[i]);
            }
            q.scales()[64 + 1] = 1.0001f;
            RowScales wrong = declaredBf16(q.params());
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> AffineTiles.repack(one, q.packed(), 0, q.rowBytes(), 20, 256, 8, 64, wrong).close());
            assertTrue(e.getMessage().contains("row 16"), e.getMessage());
        }
    }

    @Test
    void theBackendRepacksWeightsOnceAndDropsThemWhenTheirStorageIsWrittenOrFreed() {
        onBackend(backend -> {
            Ops ops = backend.ops();
            int n = 48, k = 256;
            long mappedBefore = backend.memoryStats().mappedBytes();
            try (Tensor w = backend.fromFloats(gaussian(n * k), Shape.of(n, k), DType.F32);
                 Tensor other = backend.fromFloats(gaussian(n * k), Shape.of(n, k), DType.F32);
                 Tensor x = backend.fromFloats(gaussian(3 * k), Shape.of(3, k), DType.F32)) {
                try (QuantizedMatrix q = ops.quantize(w, 64, 4); QuantizedMatrix replacement = ops.quantize(other, 64, 4)) {
                    float[] first = product(backend, x, q);
                    long repacked = backend.memoryStats().mappedBytes() - mappedBefore;
                    assertTrue(repacked > 0, "the repacked tiles count as mapped bytes");
                    assertArrayEquals(first, product(backend, x, q), "the second product, from the kept tiles");
                    assertEquals(repacked, backend.memoryStats().mappedBytes() - mappedBefore, "the tiles are made once");
                    for (int r = 0; r < 3; r++) {
                        try (Tensor row = ops.slice(x, 0, r, r + 1); Tensor one = ops.quantizedMatmul(row, q, true)) {
                            float[] alone = backend.toFloats(one);
                            assertArrayEquals(Arrays.copyOfRange(first, r * n, (r + 1) * n), alone, "x row " + r + " alone and in the batch");
                        }
                    }
                    // writing other weights' codes and parameters into q's storage: the product must follow
                    ops.writeSlice(q.packed(), replacement.packed(), 0, 0);
                    ops.writeSlice(q.scales(), replacement.scales(), 0, 0);
                    ops.writeSlice(q.biases(), replacement.biases(), 0, 0);
                    assertEquals(0, backend.memoryStats().mappedBytes() - mappedBefore, "written storage drops its tiles");
                    // written storage takes the lane-along-k kernels from then on: the same values, summed in their order
                    float[] rewritten = product(backend, x, q);
                    float[] want = product(backend, x, replacement);
                    for (int i = 0; i < want.length; i++) {
                        assertEquals(want[i], rewritten[i], 1e-4 * (1 + Math.abs(want[i])), "the product after the write reads the new codes, at " + i);
                    }
                    assertNotEquals(first[0], rewritten[0], "the write changed the product");
                }
            }
            assertEquals(mappedBefore, backend.memoryStats().mappedBytes(), "freed weights drop their tiles");
            assertEquals(0, backend.memoryStats().activeBytes(), "no storage leaked");
        });
    }

    @Test
    void aStackOfMatricesIsRepackedWholeAndEachGivesTheBitsItGivesAlone() {
        VectorWidth.requirePath(AffineTiles.supports(8, 256, 64), "the repacked affine tiles", 512);
        try (Arena arena = Arena.ofConfined(); Parallel one = new Parallel(1)) {
            int n = 40, k = 256, experts = 3;
            QuantizedRows q = QuantizedRows.of(arena, experts * n, k, 8, 64, this::gaussian);
            long[] bases = new long[experts];
            panamax.backend.java.kernel.RowScales[] params = new panamax.backend.java.kernel.RowScales[experts];
            for (int e = 0; e < experts; e++) {
                int first = e * n;
                bases[e] = first * q.rowBytes();
                params[e] = (row, sc, bi) -> q.params().load(first + row, sc, bi);
            }
            float[] x = gaussian(5 * k);
            float[] sums = QuantMatVec.groupSums(x, 5, k, 64);
            AffineTiles[] stack = AffineTiles.repackAll(one, q.packed(), bases, q.rowBytes(), n, k, 8, 64, params);
            try {
                for (int e = 0; e < experts; e++) {
                    try (AffineTiles alone = AffineTiles.repack(one, q.packed(), bases[e], q.rowBytes(), n, k, 8, 64, params[e])) {
                        int width = alone.tiles() * AffineTiles.rowsPerTile();
                        float[] want = new float[5 * width];
                        float[] got = new float[5 * width];
                        float[] placed = alone.place(x, 5);
                        alone.multiply(placed, sums, 5, 0, alone.tiles(), want, width);
                        stack[e].multiply(placed, sums, 5, 0, stack[e].tiles(), got, width);
                        assertArrayEquals(want, got, "expert " + e + " from the stack's region and alone");
                    }
                }
            } finally {
                for (AffineTiles t : stack) t.close();
                for (AffineTiles t : stack) t.close(); // a second close of each is harmless
            }
        }
    }

    @Test
    void theBackendRepacksAStackOfExpertsAtTheFirstProductOverOne() {
        onBackend(backend -> {
            Ops ops = backend.ops();
            int experts = 4, n = 32, k = 256;
            long mappedBefore = backend.memoryStats().mappedBytes();
            try (Tensor w = backend.fromFloats(gaussian(experts * n * k), Shape.of(experts, n, k), DType.F32);
                 Tensor x = backend.fromFloats(gaussian(2 * k), Shape.of(2, k), DType.F32);
                 QuantizedMatrix stacked = ops.quantize(w, 64, 4)) {
                long oneExpert = 0;
                for (int e = 0; e < experts; e++) {
                    try (Tensor p = ops.slice(stacked.packed(), 0, e, e + 1); Tensor sc = ops.slice(stacked.scales(), 0, e, e + 1);
                         Tensor bi = ops.slice(stacked.biases(), 0, e, e + 1);
                         Tensor we = ops.slice(w, 0, e, e + 1); Tensor w2 = ops.reshape(we, Shape.of(n, k));
                         QuantizedMatrix alone = ops.quantize(w2, 64, 4)) {
                        QuantizedMatrix view = new QuantizedMatrix(p, sc, bi, 64, 4);
                        float[] fromStack = product(backend, x, view);
                        if (e == 0) oneExpert = (backend.memoryStats().mappedBytes() - mappedBefore) / experts;
                        assertEquals(experts * oneExpert, backend.memoryStats().mappedBytes() - mappedBefore,
                                "the whole stack is repacked at the first product over one expert");
                        float[] separate = product(backend, x, alone);
                        assertArrayEquals(separate, fromStack, "expert " + e + " through the stack's tiles and through its own");
                    }
                }
                assertTrue(oneExpert > 0, "the experts' tiles count as mapped bytes");
            }
            assertEquals(mappedBefore, backend.memoryStats().mappedBytes(), "freed experts drop their tiles");
            assertEquals(0, backend.memoryStats().activeBytes(), "no storage leaked");
        });
    }

    @Test
    void weightsWithBf16ParametersAreRepackedWithThemInSixteenBits() {
        onBackend(backend -> {
            Ops ops = backend.ops();
            int n = 48, k = 256;
            long mappedBefore = backend.memoryStats().mappedBytes();
            try (Tensor w = backend.fromFloats(gaussian(n * k), Shape.of(n, k), DType.BF16);
                 Tensor x = backend.fromFloats(gaussian(3 * k), Shape.of(3, k), DType.F32);
                 QuantizedMatrix q = ops.quantize(w, 64, 4)) {
                float[] packed = product(backend, x, q);
                long packedBytes = backend.memoryStats().mappedBytes() - mappedBefore;
                assertEquals(AffineTiles.matrixBytes(n, k, 4, 64, true), packedBytes, "tiles of bf16 parameters");
                // the same codes with the parameters widened to f32 tensors: tiles of their own, f32 inside
                try (Tensor scales = ops.astype(q.scales(), DType.F32); Tensor biases = ops.astype(q.biases(), DType.F32)) {
                    QuantizedMatrix wide = new QuantizedMatrix(q.packed(), scales, biases, 64, 4);
                    float[] unpacked = product(backend, x, wide);
                    assertEquals(AffineTiles.matrixBytes(n, k, 4, 64, false), backend.memoryStats().mappedBytes() - mappedBefore - packedBytes,
                            "tiles of f32 parameters");
                    for (int i = 0; i < unpacked.length; i++) {
                        assertEquals(Float.floatToRawIntBits(unpacked[i]), Float.floatToRawIntBits(packed[i]), "output " + i + ": the same bits either way");
                    }
                }
            }
        });
    }

    @Test
    void productsOfOneInputRunTogetherGiveEachTheBitsItGetsAlone() {
        // a layer's q, k and v (or gate and up) read one x, placed once for all; another x of the same storage beside it
        onBackend(backend -> {
            Ops ops = backend.ops();
            int k = 256;
            try (Tensor both = backend.fromFloats(gaussian(14 * k), Shape.of(14, k), DType.F32);
                 Tensor x = ops.slice(both, 0, 0, 7);
                 Tensor other = ops.slice(both, 0, 7, 14);
                 Tensor w8 = backend.fromFloats(gaussian(40 * k), Shape.of(40, k), DType.BF16);
                 Tensor w4 = backend.fromFloats(gaussian(24 * k), Shape.of(24, k), DType.BF16);
                 QuantizedMatrix q8 = ops.quantize(w8, 64, 8);
                 QuantizedMatrix q4 = ops.quantize(w4, 32, 4)) {
                java.util.List<Tensor> xs = java.util.List.of(x, other, x, other, x);
                java.util.List<QuantizedMatrix> ws = java.util.List.of(q8, q8, q4, q4, q8);
                java.util.List<Tensor> together = ops.quantizedMatmuls(xs, ws, true);
                try {
                    for (int i = 0; i < xs.size(); i++) {
                        assertArrayEquals(product(backend, xs.get(i), ws.get(i)), backend.toFloats(together.get(i)),
                                "product " + i + " together and alone");
                    }
                } finally {
                    together.forEach(Tensor::close);
                }
            }
            assertEquals(0, backend.memoryStats().activeBytes(), "no storage leaked");
        });
    }

    /** Runs {@code body} on a fresh Java backend, closed after; skipped where tiles are not made (fewer than 512-bit vectors). */
    private static void onBackend(Consumer<Backend> body) {
        VectorWidth.requirePath(AffineTiles.supports(4, 256, 64), "the repacked affine tiles", 512);
        Backend backend = new JavaBackendProvider().create(BackendOptions.defaults());
        try {
            body.accept(backend);
        } finally {
            backend.close();
        }
    }

        private static float[] product(Backend backend, Tensor x, QuantizedMatrix q) {
        try (Tensor y = backend.ops().quantizedMatmul(x, q, true)) {
            return backend.toFloats(y);
        }
    }
}
