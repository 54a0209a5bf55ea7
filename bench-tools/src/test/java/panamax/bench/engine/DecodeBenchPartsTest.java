package panamax.bench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.model.LoadOptions;
import panamax.api.plan.KvScheme;
import panamax.engine.plan.KvSchemeFlags;

/**
 * The decode benchmark's parts that need no model plugin (the end-to-end run is
 * {@code BenchDecodeTest}): the streaming safetensors writer, option checking (the KV flags
 * included) and the floor arithmetic.
 */
class DecodeBenchPartsTest {
    @Test
    void safetensorsWriterStreamsTensorsAfterAnAlignedHeader(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("model.safetensors");
        List<SafetensorsWriter.Entry> entries = List.of(new SafetensorsWriter.Entry("a", "BF16", new long[] {2, 3}, 12),
                new SafetensorsWriter.Entry("b", "U32", new long[] {2}, 8));
        try (SafetensorsWriter w = new SafetensorsWriter(file, entries)) {
            w.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6}));
            w.write(ByteBuffer.wrap(new byte[] {7, 8, 9, 10, 11, 12})); // a tensor may arrive in pieces
            w.write(ByteBuffer.wrap(new byte[] {13, 14, 15, 16, 17, 18, 19, 20}));
        }
        byte[] bytes = Files.readAllBytes(file);
        long headerLength = ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(0, (8 + headerLength) % 8, "data starts 8-aligned");
        JsonNode header = new ObjectMapper().readTree(new String(bytes, 8, (int) headerLength, StandardCharsets.UTF_8));
        assertEquals("[12,20]", header.get("b").get("data_offsets").toString());
        assertEquals("[2,3]", header.get("a").get("shape").toString());
        assertEquals(8 + headerLength + 20, bytes.length);
        assertEquals(13, bytes[(int) (8 + headerLength + 12)]);
    }

    @Test
    void safetensorsWriterKeepsEveryByteAcrossItsStagedWrites(@TempDir Path dir) throws IOException {
        int n = 2 * SafetensorsWriter.STAGE + 12345 * 4; // more than two staged writes, the last one partial
        byte[] data = new byte[n];
        new java.util.Random(7).nextBytes(data);
        Path file = dir.resolve("model.safetensors");
        try (SafetensorsWriter w = new SafetensorsWriter(file, List.of(new SafetensorsWriter.Entry("a", "U32", new long[] {n / 4}, n)))) {
            for (int at = 0, piece = 1; at < n; at += piece, piece = piece * 3 + 1) { // pieces of odd sizes, some across a stage
                piece = Math.min(piece, n - at);
                w.write(ByteBuffer.wrap(data, at, piece));
            }
        }
        byte[] bytes = Files.readAllBytes(file);
        long headerLength = ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(8 + headerLength + n, bytes.length);
        assertTrue(java.util.Arrays.equals(data, java.util.Arrays.copyOfRange(bytes, (int) (8 + headerLength), bytes.length)));
    }

    @Test
    void safetensorsWriterRefusesMissingOrExtraBytes(@TempDir Path dir) throws IOException {
        List<SafetensorsWriter.Entry> one = List.of(new SafetensorsWriter.Entry("a", "F32", new long[] {1}, 4));
        SafetensorsWriter short_ = new SafetensorsWriter(dir.resolve("short.safetensors"), one);
        assertTrue(assertThrows(IllegalStateException.class, short_::close).getMessage().contains("tensor a was not written"));
        try (SafetensorsWriter w = new SafetensorsWriter(dir.resolve("long.safetensors"), one)) {
            assertThrows(IllegalStateException.class, () -> w.write(ByteBuffer.wrap(new byte[5])));
            w.write(ByteBuffer.wrap(new byte[4]));
        }
        assertThrows(IllegalArgumentException.class, () -> new SafetensorsWriter.Entry("x", "BF16", new long[] {3}, 4));
    }

    @Test
    void optionsNameTheFlagAndExpectedValue() {
        for (List<String> args : List.of(List.of("--preset", "7b"), List.of("--weights", "bf16,fp8"), List.of("--batches", "1,0"),
                List.of("--fill", "zeros"), List.of("--steps", "many"), List.of("--hidden", "100"), List.of("--kv-heads", "5"),
                List.of("--context"), List.of("--frobnicate", "1"), List.of("--weights-memory", "huge"), List.of("--kv-baseline", "affine"))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DecodeOptions.parse(args), args.toString());
            assertTrue(e.getMessage().contains(args.getFirst()) || e.getMessage().contains("unknown option"), e.getMessage());
        }
        DecodeOptions o = DecodeOptions.parse(List.of("--preset", "125m", "--layers", "3", "--weights", "q4", "--kv-bits", "4", "--json"));
        assertEquals(3, o.shape().layers());
        assertEquals(768, o.shape().hidden());
        assertEquals(List.of(WeightFormat.Q4), o.weights());
        assertEquals("affine", o.kv().codec());
        assertEquals("4", o.kv().codecParams().get("bits"));
        assertTrue(o.json());
        assertEquals(List.of(LoadOptions.Weights.AUTO), o.memories()); // the default: as panamax generate places weights
        assertEquals(List.of(LoadOptions.Weights.MAP, LoadOptions.Weights.COPY),
                DecodeOptions.parse(List.of("--weights-memory", "map,copy")).memories());
        // every MLX width; the batch-1 targets name bf16, 8 and 4 bits only
        assertEquals(List.of(WeightFormat.Q6, WeightFormat.Q5, WeightFormat.Q3, WeightFormat.Q2),
                DecodeOptions.parse(List.of("--weights", "q6,q5,q3,q2")).weights());
        assertEquals(0.75, WeightFormat.Q4.batchOneTarget());
        assertEquals(0, WeightFormat.Q3.batchOneTarget());
        assertEquals(WeightFormat.Q3, WeightFormat.ofBits(3));
        assertNull(WeightFormat.ofBits(7));
    }

    @Test
    void aQuantizedSchemeIsComparedWithTheIdentityCacheOfItsWindowUnlessToldNot() {
        assertEquals(java.util.Optional.empty(), DecodeOptions.parse(List.of("--preset", "tiny")).kvBaseline(), "identity has no baseline");
        KvScheme baseline = DecodeOptions.parse(List.of("--kv-bits", "4")).kvBaseline().orElseThrow();
        assertEquals(KvScheme.identity(), baseline);
        KvScheme windowed = DecodeOptions.parse(List.of("--kv-codec", "turboquant", "--max-kv-size", "256")).kvBaseline().orElseThrow();
        assertEquals("identity", windowed.codec());
        assertEquals(java.util.OptionalInt.of(256), windowed.maxKvSize());
        assertEquals(java.util.Optional.empty(), DecodeOptions.parse(List.of("--kv-bits", "8", "--kv-baseline", "none")).kvBaseline());
    }

    @Test
    void stepMediansComeByTenthOfTheTimedStepsInOrder() {
        long[] steps = new long[100];
        for (int i = 0; i < steps.length; i++) steps[i] = (steps.length - i) * 1_000_000L; // 100 ms down to 1 ms
        DecodeMeasurement.Decode d = new DecodeMeasurement.Decode(1, 16, 3, 19, 5.05, 0, PageFaults.UNKNOWN, steps);
        double[] tenths = d.tenthMedianMillis();
        assertEquals(10, tenths.length);
        assertEquals(96, tenths[0], 1e-9, "the first ten steps: 100 .. 91 ms, upper median 96");
        assertEquals(6, tenths[9], 1e-9, "the last ten: 10 .. 1 ms");
        long[] few = new long[19];
        assertEquals(0, new DecodeMeasurement.Decode(1, 16, 3, 19, 1, 0, PageFaults.UNKNOWN, few).tenthMedianMillis().length,
                "under 20 steps a tenth says nothing");
    }

    @Test
    void aKvComparisonPassesAtTheIdentityRateAndMissesBelowIt() {
        KvComparison even = new KvComparison("bf16", "affine{bits=4}", 8, 4096, 10, 10, 12, 11);
        assertEquals("PASS", even.result());
        assertEquals(1.0, even.ratio(), 1e-12);
        KvComparison slower = new KvComparison("bf16", "affine{bits=4}", 1, 4096, 10, 9.9, 12, 13);
        assertEquals("MISS", slower.result(), "judged on the means, not the best steps");
        assertTrue(slower.json().contains("\"result\":\"MISS\""), slower.json());
        assertTrue(slower.tableLine().contains("MISS"), slower.tableLine());
    }

    @Test
    void theKvFlagsMeanWhatTheyMeanForPanamaxGenerate() {
        for (List<String> kv : List.<List<String>>of(List.of(), List.of("--kv-bits", "4"), List.of("--kv-bits", "3", "--kv-group-size", "32"),
                List.of("--kv-codec", "turboquant", "--kv-key-bits", "4", "--kv-value-bits", "2"),
                List.of("--kv-codec", "affine", "--kv-param", "bits=8", "--kv-param", "group_size=32"),
                List.of("--kv-bits", "8", "--quantized-kv-start", "64", "--max-kv-size", "256"))) {
            List<String> args = new java.util.ArrayList<>(List.of("--preset", "tiny", "--json"));
            args.addAll(kv);
            assertEquals(KvSchemeFlags.parse(kv).scheme(), DecodeOptions.parse(args).kv(), kv.toString());
        }
        // --kv-bits alone carries the CLI's default group size, not the codec's
        assertEquals("64", DecodeOptions.parse(List.of("--kv-bits", "4")).kv().codecParams().get("group_size"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DecodeOptions.parse(List.of("--kv-group-size", "32")));
        assertTrue(e.getMessage().startsWith("--kv-group-size needs --kv-bits"), e.getMessage());
    }

    @Test
    void pageFaultsAreReadAfterACommandNameHoldingSpacesAndParentheses() {
        PageFaults f = PageFaults.parse("12584 (java (x) y) R 12579 12579 3216 0 -1 4194304 101 7 3 2 0 0 0 0 20 0 1 0 118078");
        assertEquals(new PageFaults(101, 3), f);
        assertEquals(new PageFaults(61, 1), f.since(new PageFaults(40, 2)));
        assertEquals(PageFaults.UNKNOWN, f.since(PageFaults.UNKNOWN));
        assertThrows(IllegalArgumentException.class, () -> PageFaults.parse("12584 (cat) R 1 2"));
    }

    @Test
    void pageFaultsOfThisProcessGrowWhenFreshMemoryIsTouched() {
        PageFaults before = PageFaults.now();
        assumeTrue(before.known(), "no /proc/self/stat here");
        PageFaults after;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fresh = arena.allocate(64 << 20); // a fresh anonymous mapping at this size, zeroed page by page
            fresh.set(ValueLayout.JAVA_BYTE, fresh.byteSize() - 1, (byte) 1);
            after = PageFaults.now();
        }
        assertTrue(after.since(before).minor() >= 1000, "allocating 64 MiB off-heap faults its pages in: " + after.since(before));
    }

    @Test
    void theFloorIsTheSlowerOfStreamingAndComputing() {
        ModelShape s = ModelShape.preset("1b");
        MachineProbes.Yardsticks y = new MachineProbes.Yardsticks(50e9, 200e9, 1 << 30, 2, 16);
        // bf16 batch 1: 2·params bytes over 50 GB/s dwarfs 2·params FLOPs over 200 GFLOP/s
        Floor one = Floor.decodeStep(s, WeightFormat.BF16, 1, 512, 0);
        assertTrue(one.memoryBound(y));
        assertEquals(Floor.weightBytes(s, WeightFormat.BF16) / 50e9, one.seconds(y), one.seconds(y) * 0.01);
        // 4-bit weights stream about 3.5x fewer bytes than bf16 (codes plus a scale and bias per 64)
        double ratio = Floor.weightBytes(s, WeightFormat.BF16) / Floor.weightBytes(s, WeightFormat.Q4);
        assertTrue(ratio > 3.4 && ratio < 3.7, "bf16/q4 bytes " + ratio);
        // 3-bit codes: three eighths of a byte a weight, plus the same parameters as 4-bit ones
        double q3 = Floor.weightBytes(s, WeightFormat.Q4) - Floor.weightBytes(s, WeightFormat.Q3);
        assertTrue(q3 > 0 && q3 < Floor.weightBytes(s, WeightFormat.Q4) / 4, "q4 - q3 bytes " + q3);
        // a 512-token prefill is compute-bound
        assertTrue(!Floor.prefill(s, WeightFormat.BF16, 512).memoryBound(y));
        // the KV cache adds to the bytes of a step
        assertTrue(Floor.decodeStep(s, WeightFormat.BF16, 8, 512, 1 << 20).bytes() > one.bytes() + 512.0 * (1 << 20));
    }

    @Test
    void aMixtureOfExpertsFloorStreamsOnlyTheRoutedExperts() {
        ModelShape moe = ModelShape.preset("moe");
        assertEquals(128, moe.experts());
        assertEquals(8, moe.topK());
        // one token: attention, routers, head and exactly k experts per layer
        ModelShape kExperts = new ModelShape(moe.layers(), moe.hidden(), moe.heads(), moe.kvHeads(), moe.headDim(), moe.intermediate(), moe.vocab());
        double expert = 3.0 * moe.hidden() * moe.intermediate() * 2, router = moe.experts() * moe.hidden() * 2.0, qkNorms = 2 * 2 * moe.headDim();
        double dense = Floor.weightBytes(kExperts, WeightFormat.BF16);
        assertEquals(dense + moe.layers() * ((moe.topK() - 1) * expert + router + qkNorms), Floor.weightBytes(moe, WeightFormat.BF16), 1);
        // a batch reads the expected distinct experts, never more than all of them
        assertEquals(moe.topK(), moe.expertsRead(1), 1e-9);
        assertTrue(moe.expertsRead(8) > 8 && moe.expertsRead(8) < 64);
        assertEquals(moe.experts(), moe.expertsRead(4096), 1e-6);
        assertTrue(Floor.weightBytes(moe, WeightFormat.BF16, 4096) < moe.params() * 2.0, "no more than every weight once");
        // FLOPs count the routed experts only: 2 per active weight
        assertEquals(2.0 * moe.matmulParams(), moe.flopsPerToken(0), 1);
        assertTrue(moe.params() > 8 * moe.matmulParams(), "128 experts of which 8 are active: " + moe.describe());
    }

    @Test
    void aRowIsJudgedAgainstTheFasterProbeOfTheRun() {
        ModelShape s = ModelShape.preset("1b");
        MachineProbes.Yardsticks slow = new MachineProbes.Yardsticks(30e9, 200e9, 1 << 30, 2, 16);
        MachineProbes.Yardsticks fast = new MachineProbes.Yardsticks(45e9, 180e9, 1 << 30, 2, 16);
        MachineProbes.Yardsticks best = slow.best(fast);
        assertEquals(45e9, best.readBytesPerSecond());
        assertEquals(200e9, best.flopsPerSecond());
        Floor floor = Floor.decodeStep(s, WeightFormat.BF16, 1, 512, 0);
        double slowFloorRate = floor.tokensPerSecond(1, slow);
        // measured at 90 % of the floor the slow probe gives: a PASS against it, a MISS against the faster one
        double rate = 0.9 * slowFloorRate;
        var batchOne = new DecodeBench.PendingRow("bf16", "decode", 1, 512, rate, rate, 0, floor, 1, ">= 80% of floor", 0.8);
        assertEquals(true, batchOne.judged(slow).met());
        BenchRow judged = batchOne.judged(best);
        assertEquals(slowFloorRate * 1.5, judged.floorTokensPerSecond(), slowFloorRate * 1e-9);
        assertEquals(false, judged.met());
        assertEquals(0.6, judged.fractionOfFloor(), 1e-9);
        // batch 8 is judged against its FMA-set floor: 71 % of it passes the 70 % target, 69 % misses
        Floor eight = Floor.decodeStep(s, WeightFormat.BF16, 8, 512, 0);
        double eightFloor = eight.tokensPerSecond(8, best);
        var passing = new DecodeBench.PendingRow("bf16", "decode", 8, 512, 0.71 * eightFloor, eightFloor, 0, eight, 8, ">= 70% of floor",
                WeightFormat.BATCHED_TARGET);
        assertEquals(true, passing.judged(best).met());
        var missing = new DecodeBench.PendingRow("bf16", "decode", 8, 512, 0.69 * eightFloor, eightFloor, 0, eight, 8, ">= 70% of floor",
                WeightFormat.BATCHED_TARGET);
        assertEquals(false, missing.judged(best).met());
        // a row without a target is never a PASS
        var none = new DecodeBench.PendingRow("bf16", "decode", 4, 512, 2 * eightFloor, eightFloor, 0, eight, 8, "", 0);
        assertEquals(false, none.judged(best).met());
    }
}
