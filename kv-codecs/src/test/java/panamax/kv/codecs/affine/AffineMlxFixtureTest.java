package panamax.kv.codecs.affine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static panamax.kv.codecs.JavaBackendFixture.leakChecked;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.CodecFactory;

/**
 * The affine codec's planes against MLX 0.31.2's own CPU {@code quantize} outputs
 * ({@code shared/fixtures/mlx-affine/quantize.safetensors}, 36 cases: bits 2–8 × groups 32/64/128 ×
 * f32/bf16): each fixture row of 384 values is one head's key vector, and the packed words, scales
 * and biases must be identical bit for bit.
 */
class AffineMlxFixtureTest {
    private static final Pattern ENTRY = Pattern.compile(
            "\"([^\"]+)\"\\s*:\\s*\\{\\s*\"dtype\"\\s*:\\s*\"(\\w+)\"\\s*,\\s*\"shape\"\\s*:\\s*\\[([0-9, ]*)]\\s*,\\s*\"data_offsets\"\\s*:\\s*\\[(\\d+)\\s*,\\s*(\\d+)]");

    /** One stored tensor, as raw 32-bit words (F32 and U32) or bf16 bit patterns widened to f32. */
    private record Stored(String dtype, float[] floats, int[] words) {
    }

    private static Map<String, Stored> read(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        ByteBuffer buf = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        int headerLength = (int) buf.getLong(0);
        String header = new String(all, 8, headerLength, java.nio.charset.StandardCharsets.UTF_8);
        int dataStart = 8 + headerLength;
        Map<String, Stored> out = new HashMap<>();
        Matcher m = ENTRY.matcher(header);
        while (m.find()) {
            String dtype = m.group(2);
            int from = dataStart + Integer.parseInt(m.group(4));
            int to = dataStart + Integer.parseInt(m.group(5));
            int size = dtype.equals("BF16") ? 2 : 4;
            int n = (to - from) / size;
            float[] floats = new float[n];
            int[] words = new int[n];
            for (int i = 0; i < n; i++) {
                if (size == 2) {
                    floats[i] = Float.intBitsToFloat((buf.getShort(from + 2 * i) & 0xffff) << 16);
                } else {
                    words[i] = buf.getInt(from + 4 * i);
                    floats[i] = Float.intBitsToFloat(words[i]);
                }
            }
            out.put(m.group(1), new Stored(dtype, floats, words));
        }
        return out;
    }

    @Test
    void packedWordsScalesAndBiasesEqualMlxBitForBitInAll36Cases() throws IOException {
        Path file = Path.of(System.getProperty("panamax.fixtures", "../../shared/fixtures"), "mlx-affine", "quantize.safetensors");
        assertTrue(Files.isRegularFile(file), "fixture missing: " + file.toAbsolutePath());
        Map<String, Stored> tensors = read(file);
        int cases = 0;
        for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
            for (int group : new int[] {32, 64, 128}) {
                for (String type : new String[] {"f32", "bf16"}) {
                    String name = "b" + bits + "_g" + group + "_" + type;
                    DType dtype = type.equals("f32") ? DType.F32 : DType.BF16;
                    Stored input = tensors.get(name + ".input");
                    assertEquals(6 * 384, input.floats().length, name);
                    leakChecked(b -> {
                        try (KvCodec codec = CodecFactory.create(new AffineCodecProvider(),
                                Map.of("bits", "" + bits, "group_size", "" + group), b, 6, 384, dtype);
                             Tensor x = b.fromFloats(input.floats(), Shape.of(1, 6, 1, 384), dtype)) {
                            List<Tensor> planes = codec.encode(KvRole.KEY, x);
                            try {
                                assertArrayEquals(tensors.get(name + ".packed").words(), b.toInts(planes.get(0)), name + " packed");
                                assertArrayEquals(tensors.get(name + ".scales").floats(), b.toFloats(planes.get(1)), name + " scales");
                                assertArrayEquals(tensors.get(name + ".biases").floats(), b.toFloats(planes.get(2)), name + " biases");
                            } finally {
                                planes.forEach(Tensor::close);
                            }
                        }
                    });
                    cases++;
                }
            }
        }
        assertEquals(36, cases);
    }
}
