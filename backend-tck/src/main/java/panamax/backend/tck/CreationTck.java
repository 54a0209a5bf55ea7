package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.generators.SourceDSL.integers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.KernelFamily;

/**
 * Creation and read-back: {@code zeros}, {@code full}, {@code arange}, {@code fromFloats},
 * {@code fromInts}, {@code fromSegment}, {@code toFloats}, {@code toInts}, tensor accessors and
 * closed-tensor handling, and the optional kernel families handed out as declared. Every result here must be exact (see {@link BackendTck} for the rule).
 */
public abstract class CreationTck extends BackendTck {

    private Gen<DType> storedTypes() {
        return Gens.oneOf(List.copyOf(backend().capabilities().storageTypes()));
    }

    private Gen<DType> floatingTypes() {
        return Gens.oneOf(List.copyOf(supported(DType.F32, DType.BF16, DType.F16)));
    }

    @Test
    public void kernelFamiliesAreHandedOutExactlyAsDeclared() {
        var declared = backend().capabilities().kernels();
        assertEquals(provider().capabilities().kernels(), declared, "kernel families: the provider's declaration and the backend's");
        for (Class<? extends KernelFamily> family : List.of(AffineKvKernels.class, CodebookAttentionKernels.class, CodebookKernels.class)) {
            Optional<? extends KernelFamily> kernels = backend().kernel(family);
            assertEquals(declared.contains(family), kernels.isPresent(), family.getSimpleName() + ": declared and handed out");
            kernels.ifPresent(k -> assertSame(k, backend().kernel(family).orElseThrow(), family.getSimpleName() + ": one instance"));
        }
        for (Class<? extends KernelFamily> family : declared) {
            assertTrue(backend().kernel(family).map(family::isInstance).orElse(false), family.getSimpleName() + " is declared but not handed out");
        }
    }

    @Test
    public void zerosHoldZerosInEveryStoredDtypeAndShape() {
        qt(40).forAll(Gens.dims(0, 4, 5), storedTypes()).checkAssert((dims, dtype) -> {
            try (Tensor t = ops().zeros(new Shape(dims), dtype)) {
                assertExact("zeros", t, dtype, Ref.zeros(dims));
            }
        });
    }

    @Test
    public void fullRoundsItsValueToTheDtype() {
        qt(60).forAll(Gens.dims(0, 3, 4), floatingTypes(), Gens.spreads().flatMap(Gens::element))
                .checkAssert((dims, dtype, value) -> {
                    try (Tensor t = ops().full(new Shape(dims), value, dtype)) {
                        assertExact("full(" + value + ")", t, dtype, Ref.zeros(dims).map(z -> value));
                    }
                });
    }

    @Test
    public void fullOfAnIntegerValueFillsIntegerTensors() {
        List<DType> ints = List.copyOf(supported(DType.I32, DType.U8, DType.BOOL));
        qt(30).forAll(Gens.dims(0, 3, 4), Gens.oneOf(ints), integers().between(0, 1)).checkAssert((dims, dtype, one) -> {
            double value = dtype == DType.BOOL ? one : dtype == DType.U8 ? 200 * one : -1234 * one + 7;
            try (Tensor t = ops().full(new Shape(dims), value, dtype)) {
                assertExact("full(" + value + ")", t, dtype, Ref.zeros(dims).map(z -> value));
            }
        });
    }

    @Test
    public void arangeCountsFromStartToStopExclusive() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16, DType.F16, DType.I32));
        qt(40).forAll(integers().between(-300, 300), integers().between(0, 40), Gens.oneOf(types))
                .checkAssert((start, length, dtype) -> {
                    double[] expected = new double[length];
                    for (int i = 0; i < length; i++) expected[i] = start + i;
                    try (Tensor t = ops().arange(start, start + length, dtype)) {
                        assertExact("arange(" + start + ", " + (start + length) + ")", t, dtype, new Ref(new int[] {length}, expected));
                    }
                });
    }

    /** Random f32 bit patterns with a fair share of exact bf16 and f16 rounding ties. */
    private static Gen<Float> floatsWithTies() {
        return integers().between(0, 3).zip(integers().between(-20, 20), integers().all(), (kind, exponent, bits) -> {
            int mantissa = bits & 0x7FFFFF;
            if (kind == 1) mantissa = (mantissa & 0x7F0000) | 0x8000; // halfway between two bf16 values
            if (kind == 2) mantissa = (mantissa & 0x7FE000) | 0x1000; // halfway between two f16 values
            int sign = bits < 0 ? 0x80000000 : 0;
            return Float.intBitsToFloat(sign | (127 + exponent) << 23 | mantissa);
        });
    }

    @Test
    public void fromFloatsRoundsToNearestEvenAndReadsBack() {
        qt(60).forAll(Gens.dims(0, 3, 5), floatingTypes(), floatsWithTies()).checkAssert((dims, dtype, seed) -> {
            float[] data = new float[Ref.size(dims)];
            for (int i = 0; i < data.length; i++) data[i] = i % 2 == 0 ? seed : seed * (1 + i % 5) / (1 + i % 3);
            double[] asDouble = new double[data.length];
            for (int i = 0; i < data.length; i++) asDouble[i] = data[i];
            Ref expected = new Ref(dims, asDouble);
            try (Tensor t = backend().fromFloats(data, new Shape(dims), dtype)) {
                assertExact("fromFloats", t, dtype, expected);
                int[] truncated = backend().toInts(t);
                for (int i = 0; i < data.length; i++) {
                    double stored = Numerics.round(data[i], dtype);
                    if (Math.abs(stored) < 1e9) assertEquals((int) stored, truncated[i], "toInts truncates " + stored);
                }
            }
        });
    }

    @Test
    public void fromIntsStoresI32U32U8AndBoolAsSpecified() {
        List<DType> ints = List.copyOf(supported(DType.I32, DType.U32, DType.U8, DType.BOOL));
        qt(40).forAll(Gens.dims(0, 3, 5), Gens.oneOf(ints), integers().all()).checkAssert((dims, dtype, seed) -> {
            int[] data = new int[Ref.size(dims)];
            for (int i = 0; i < data.length; i++) data[i] = i % 4 == 0 ? 0 : seed * (i + 1) >> (i % 9);
            int[] expected = new int[data.length];
            for (int i = 0; i < data.length; i++) {
                expected[i] = switch (dtype) {
                    case U8 -> data[i] & 0xFF;
                    case BOOL -> data[i] != 0 ? 1 : 0;
                    default -> data[i];
                };
            }
            try (Tensor t = backend().fromInts(data, new Shape(dims), dtype)) {
                assertEquals(dtype, t.dtype());
                assertArrayEquals(expected, backend().toInts(t), "toInts of " + dtype);
                float[] floats = backend().toFloats(t);
                for (int i = 0; i < data.length; i++) {
                    double exact = dtype == DType.U32 ? Integer.toUnsignedLong(expected[i]) : expected[i];
                    assertEquals((float) exact, floats[i], "toFloats of " + dtype + " " + exact);
                }
            }
        });
    }

    @Test
    public void fromSegmentReadsLittleEndianBytesOfEveryDtype() {
        List<DType> types = List.copyOf(backend().capabilities().storageTypes());
        qt(40).forAll(Gens.dims(0, 3, 5), Gens.oneOf(types), integers().all()).checkAssert((dims, dtype, seed) -> {
            int n = Ref.size(dims);
            double[] values = new double[n];
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
            for (int i = 0; i < n; i++) {
                values[i] = Numerics.round(dtype.isFloating() ? random.nextDouble(-50, 50) : random.nextInt(0, 250), dtype);
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment segment = arena.allocate((long) n * dtype.byteSize(), 8);
                for (int i = 0; i < n; i++) write(segment, i, values[i], dtype);
                try (Tensor t = backend().fromSegment(segment, new Shape(dims), dtype)) {
                    assertExact("fromSegment", t, dtype, new Ref(dims, values));
                }
            }
        });
    }

    private static void write(MemorySegment s, int i, double v, DType dtype) {
        ValueLayout.OfShort s16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        ValueLayout.OfInt s32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        switch (dtype) {
            case F32 -> s.set(ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4L * i, (float) v);
            case BF16 -> s.set(s16, 2L * i, (short) Numerics.bf16Bits((float) v));
            case F16 -> s.set(s16, 2L * i, Float.floatToFloat16((float) v));
            case I32, U32 -> s.set(s32, 4L * i, (int) v);
            case U8, BOOL -> s.set(ValueLayout.JAVA_BYTE, i, (byte) v);
        }
    }

    @Test
    public void creationRefusesMismatchedSizesAndNonFloatingDtypes() {
        assertThrows(IllegalArgumentException.class, () -> backend().fromFloats(new float[5], Shape.of(2, 3), DType.F32));
        assertThrows(IllegalArgumentException.class, () -> backend().fromFloats(new float[6], Shape.of(2, 3), DType.I32));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seven = arena.allocate(7 * 4);
            assertThrows(IllegalArgumentException.class, () -> backend().fromSegment(seven, Shape.of(2, 3), DType.F32));
        }
    }

    @Test
    public void backendNameAndCapabilitiesMatchItsProvider() {
        assertEquals(provider().id(), backend().name());
        assertEquals(provider().capabilities(), backend().capabilities());
        assertTrue(backend().capabilities().storageTypes().contains(DType.F32), "every backend stores F32");
        backend().eval();
    }

    @Test
    public void tensorsReportTheirShapeDtypeAndBackend() {
        try (Tensor t = backend().fromFloats(new float[] {1, 2, 3, 4, 5, 6}, Shape.of(1, 2, 3), DType.F32)) {
            assertEquals(Shape.of(1, 2, 3), t.shape());
            assertEquals(DType.F32, t.dtype());
            assertEquals(3, t.rank());
            assertEquals(6, t.size());
            assertEquals(3, t.dim(-1));
            assertSame(backend(), t.backend());
        }
        try (Tensor scalar = backend().fromFloats(new float[] {2.5f}, Shape.of(), DType.F32)) {
            assertExact("scalar", scalar, DType.F32, new Ref(new int[0], new double[] {2.5}));
        }
    }

    @Test
    public void usingAClosedTensorThrowsAndClosingTwiceIsHarmless() {
        Tensor t = backend().fromFloats(new float[] {1, 2}, Shape.of(2), DType.F32);
        t.close();
        t.close();
        assertThrows(IllegalStateException.class, () -> backend().toFloats(t));
        assertThrows(IllegalStateException.class, () -> {
            try (Tensor copy = ops().copy(t)) {
                backend().eval(copy);
            }
        });
    }

    @Test
    public void opsRefuseTensorsOfAnotherBackend() {
        try (Backend other = provider().create(options());
             Tensor foreign = other.fromFloats(new float[] {1, 2}, Shape.of(2), DType.F32);
             Tensor own = backend().fromFloats(new float[] {1, 2}, Shape.of(2), DType.F32)) {
            assertThrows(RuntimeException.class, () -> {
                try (Tensor sum = ops().add(own, foreign)) {
                    backend().eval(sum);
                }
            });
        }
    }
}
