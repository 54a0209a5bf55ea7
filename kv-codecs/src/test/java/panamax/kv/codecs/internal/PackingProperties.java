package panamax.kv.codecs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static panamax.kv.codecs.JavaBackendFixture.leakChecked;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.MlxAffineReference;

/** Packing codes into uint32 planes through Ops, and reading them back, is exact at every width. */
class PackingProperties {
    private static final int[] WIDTHS = {1, 2, 3, 4, 5, 6, 8};

    @Test
    void packedWordsAreTheLsbFirstBitStreamAndDecodeBackToTheSameCodes() {
        qt().withExamples(60).forAll(integers().between(0, WIDTHS.length - 1), integers().between(1, 2), longs().all())
                .checkAssert((wi, per64, seed) -> leakChecked(b -> {
                    int bits = WIDTHS[wi];
                    int n = 64 * per64;
                    int rows = 5;
                    SplitMix64 rng = new SplitMix64(seed);
                    int[] codes = new int[rows * n];
                    float[] asFloats = new float[codes.length];
                    for (int i = 0; i < codes.length; i++) {
                        // favour the extremes: they carry the top bit and the all-ones patterns
                        long r = rng.nextLong();
                        codes[i] = (r & 3) == 0 ? (1 << bits) - 1 : (int) Long.remainderUnsigned(r >>> 2, 1L << bits);
                        asFloats[i] = codes[i];
                    }
                    float[] identity = new float[1 << bits];
                    for (int i = 0; i < identity.length; i++) identity[i] = i;
                    try (BitPacker packer = new BitPacker(b, bits);
                         CodeTable table = new CodeTable(b, bits, identity);
                         Tensor x = b.fromFloats(asFloats, Shape.of(1, rows, n), DType.F32);
                         Tensor packed = packer.pack(b.ops(), x);
                         Tensor decoded = table.decode(b.ops(), packed, n);
                         Tensor looked = table.lookup(b.ops(), x)) {
                        int[] expected = new int[0];
                        for (int r = 0; r < rows; r++) {
                            int[] row = MlxAffineReference.pack(Arrays.copyOfRange(codes, r * n, (r + 1) * n), bits);
                            expected = concat(expected, row);
                        }
                        assertArrayEquals(expected, b.toInts(packed), "packed words at " + bits + " bits");
                        assertArrayEquals(asFloats, b.toFloats(decoded), "decoded codes at " + bits + " bits");
                        assertArrayEquals(asFloats, b.toFloats(looked), "looked-up codes at " + bits + " bits");
                    }
                }));
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
