package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import panamax.api.tensor.DType;

/** Checks the TCK's own oracles: rounding, ulps, promotion, erf, index math and bit packing. */
class NumericsTest {

    @Test
    void bf16RoundsToNearestWithTiesToEven() {
        assertEquals(1.0f, Numerics.toBf16(1.00390625)); // halfway, even mantissa below
        assertEquals(1.015625f, Numerics.toBf16(1.01171875)); // halfway, even mantissa above
        assertEquals(1.0078125f, Numerics.toBf16(1.0058));
        assertEquals(-2.0f, Numerics.toBf16(-2.0078125));
        assertEquals(Float.POSITIVE_INFINITY, Numerics.toBf16(Float.MAX_VALUE));
    }

    @Test
    void ulpsFollowEachDtypesMantissa() {
        assertEquals(0x1p-23, Numerics.ulp(1.0, DType.F32));
        assertEquals(0x1p-7, Numerics.ulp(1.5, DType.BF16));
        assertEquals(0x1p-10, Numerics.ulp(1.5, DType.F16));
        assertEquals(0x1p-24, Numerics.ulp(1e-7, DType.F16));
        assertEquals(0.0, Numerics.ulp(3, DType.I32));
    }

    @Test
    void promotionFollowsTheApiRules() {
        assertEquals(DType.BF16, Numerics.promote(DType.BF16, DType.BF16));
        assertEquals(DType.F32, Numerics.promote(DType.BF16, DType.F16));
        assertEquals(DType.F32, Numerics.promote(DType.F32, DType.BF16));
        assertEquals(DType.F16, Numerics.promote(DType.I32, DType.F16));
        assertThrows(IllegalArgumentException.class, () -> Numerics.promote(DType.I32, DType.U8));
    }

    @Test
    void erfMatchesTabulatedValuesAlsoInTheTail() {
        assertEquals(0.5204998778130465, Numerics.erf(0.5), 1e-15);
        assertEquals(0.8427007929497149, Numerics.erf(1.0), 1e-15);
        assertEquals(-0.9953222650189527, Numerics.erf(-2.0), 1e-14);
        assertEquals(2.209049699858544e-05, Numerics.erfc(3.0), 1e-18);
        assertEquals(1.5374597944280349e-12, Numerics.erfc(5.0), 1e-24);
        assertEquals(0.15865525393145707, Numerics.normalCdf(-1.0), 1e-15);
    }

    @Test
    void transposeAndBroadcastMoveTheRightElements() {
        Ref x = new Ref(new int[] {2, 3}, new double[] {0, 1, 2, 3, 4, 5});
        assertArrayEquals(new double[] {0, 3, 1, 4, 2, 5}, x.transpose(1, 0).values());
        assertArrayEquals(new double[] {1, 2, 4, 5}, x.slice(1, 1, 3).values());
        Ref column = new Ref(new int[] {2, 1}, new double[] {7, 8});
        assertArrayEquals(new double[] {7, 7, 7, 8, 8, 8}, column.broadcastTo(new int[] {2, 3}).values());
        assertArrayEquals(new double[] {7, 8, 9, 11, 12, 13}, Ref.zip(x, column, Double::sum).values());
    }

    @Test
    void packingIsAnLsbFirstBitStreamThatUnpacksToTheSameCodes() {
        for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
            int cols = 64;
            int[] codes = new int[2 * cols];
            for (int i = 0; i < codes.length; i++) codes[i] = (i * 7 + 3) & ((1 << bits) - 1);
            int[] packed = AffineReference.pack(codes, 2, cols, bits);
            assertEquals(2 * cols * bits / 32, packed.length);
            assertArrayEquals(codes, AffineReference.unpack(packed, 2, cols, bits), bits + " bits");
        }
        int[] fourBit = AffineReference.pack(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 1, 32, 4);
        assertEquals(0x87654321, fourBit[0]);
    }
}
