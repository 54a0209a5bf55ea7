package panamax.backend.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small reader of the reference safetensors files in {@code ../shared/fixtures} (F32, BF16 and U32
 * tensors), so the TCK can compare against data that real MLX produced. Reads the whole file into
 * heap memory; immutable afterwards; thread-safe.
 */
public final class FixtureFile {
    private static final Pattern ENTRY = Pattern.compile(
            "\"([^\"]+)\"\\s*:\\s*\\{\\s*\"dtype\"\\s*:\\s*\"(\\w+)\"\\s*,\\s*\"shape\"\\s*:\\s*\\[([^\\]]*)]\\s*,"
                    + "\\s*\"data_offsets\"\\s*:\\s*\\[\\s*(\\d+)\\s*,\\s*(\\d+)\\s*]");

    /** One tensor: its safetensors dtype name, dims and values (floats widened exactly; U32 as bit patterns). */
    public record Entry(String dtype, int[] dims, double[] values) {
        public int[] bits() {
            int[] out = new int[values.length];
            for (int i = 0; i < out.length; i++) out[i] = (int) (long) values[i];
            return out;
        }
    }

    private final Map<String, Entry> entries = new HashMap<>();

    private FixtureFile(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int headerLength = (int) buf.getLong(0);
        String header = new String(bytes, 8, headerLength, StandardCharsets.UTF_8);
        int dataStart = 8 + headerLength;
        Matcher m = ENTRY.matcher(header);
        while (m.find()) {
            String dtype = m.group(2);
            String shapeText = m.group(3).trim();
            int[] dims = shapeText.isEmpty() ? new int[0]
                    : java.util.Arrays.stream(shapeText.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
            int begin = dataStart + Integer.parseInt(m.group(4));
            double[] values = new double[Ref.size(dims)];
            for (int i = 0; i < values.length; i++) {
                values[i] = switch (dtype) {
                    case "F32" -> buf.getFloat(begin + 4 * i);
                    case "U32" -> Integer.toUnsignedLong(buf.getInt(begin + 4 * i));
                    case "I32" -> buf.getInt(begin + 4 * i);
                    case "BF16" -> Float.intBitsToFloat((buf.getShort(begin + 2 * i) & 0xFFFF) << 16);
                    default -> throw new IllegalArgumentException(file + ": tensor " + m.group(1)
                            + " has dtype " + dtype + ", expected F32, BF16, U32 or I32");
                };
            }
            entries.put(m.group(1), new Entry(dtype, dims, values));
        }
    }

    /**
     * Reads {@code relative} under the fixtures folder named by system property {@code panamax.fixtures}
     * (default {@code ../shared/fixtures} of the working directory's parent project).
     *
     * @throws IllegalStateException naming the path when the file is missing (a missing fixture fails, never skips)
     */
    public static FixtureFile open(String relative) {
        String root = System.getProperty("panamax.fixtures", "../../shared/fixtures");
        Path file = Path.of(root).resolve(relative);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("fixture " + file.toAbsolutePath()
                    + " not found: set -Dpanamax.fixtures to the shared fixtures folder");
        }
        try {
            return new FixtureFile(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read fixture " + file, e);
        }
    }

    /** The tensor named {@code name}, or an exception naming it. */
    public Entry get(String name) {
        Entry e = entries.get(name);
        if (e == null) throw new IllegalArgumentException("fixture tensor " + name + " not found among " + entries.size());
        return e;
    }
}
