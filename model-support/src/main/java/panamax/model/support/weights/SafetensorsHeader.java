package panamax.model.support.weights;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import panamax.api.error.BadModelFileException;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;

/**
 * Parses and checks the header of a safetensors file: an 8-byte little-endian length, a JSON
 * object of {@code name → {dtype, shape, data_offsets}} (plus an optional {@code __metadata__}),
 * then the data section. Every entry is checked against the data section's length, its dtype and
 * shape, and its neighbours (no overlaps). Stateless and thread-safe; anything wrong is a
 * {@link BadModelFileException} naming the file and the entry.
 */
public final class SafetensorsHeader {
    /** The safetensors reference implementation refuses headers above 100 MB as well. */
    static final long MAX_HEADER_BYTES = 100L << 20;

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    static {
        JSON.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build());
    }

    private final Map<String, TensorEntry> tensors;
    private final long dataStart;

    private SafetensorsHeader(Map<String, TensorEntry> tensors, long dataStart) {
        this.tensors = tensors;
        this.dataStart = dataStart;
    }

    /** Tensors by name, in header order. */
    public Map<String, TensorEntry> tensors() {
        return tensors;
    }

    /** Byte offset of the data section within the file. */
    public long dataStart() {
        return dataStart;
    }

    /**
     * Parses the header of {@code file}, whose whole content is {@code contents} (borrowed).
     *
     * @throws BadModelFileException naming {@code file} and the field or tensor that is wrong
     */
    public static SafetensorsHeader parse(Path file, MemorySegment contents) {
        long size = contents.byteSize();
        if (size < 8) throw new BadModelFileException(file, "header length", "8 bytes", size + " bytes in the whole file");
        long headerLength = contents.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
        if (headerLength < 2 || headerLength > MAX_HEADER_BYTES || headerLength > size - 8) {
            throw new BadModelFileException(file, "header length", "between 2 and " + Math.min(MAX_HEADER_BYTES, size - 8)
                    + " bytes (the file is " + size + " bytes)", Long.toUnsignedString(headerLength));
        }
        byte[] header = contents.asSlice(8, headerLength).toArray(ValueLayout.JAVA_BYTE);
        JsonNode root = readJson(file, header);
        long dataStart = 8 + headerLength;
        long dataLength = size - dataStart;
        Map<String, TensorEntry> entries = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (field.getKey().equals("__metadata__")) {
                checkMetadata(file, field.getValue());
                continue;
            }
            entries.put(field.getKey(), entry(file, field.getKey(), field.getValue(), dataLength));
        }
        checkOverlaps(file, entries);
        return new SafetensorsHeader(java.util.Collections.unmodifiableMap(entries), dataStart);
    }

    private static JsonNode readJson(Path file, byte[] header) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(header)).toString();
        } catch (CharacterCodingException e) {
            throw new BadModelFileException(file, "header", "UTF-8 JSON", "bytes that are not UTF-8");
        }
        JsonNode root;
        try {
            root = JSON.readTree(text.stripTrailing()); // the format pads the header with spaces
        } catch (JacksonException e) {
            throw new BadModelFileException(file, "header", "a JSON object", "invalid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadModelFileException(file, "cannot parse the header", e);
        }
        if (root == null || !root.isObject()) {
            throw new BadModelFileException(file, "header", "a JSON object", root == null ? "nothing" : root.getNodeType().toString());
        }
        return root;
    }

    private static void checkMetadata(Path file, JsonNode metadata) {
        if (!metadata.isObject()) throw new BadModelFileException(file, "__metadata__", "an object of strings", metadata.getNodeType().toString());
        metadata.fields().forEachRemaining(e -> {
            if (!e.getValue().isTextual()) {
                throw new BadModelFileException(file, "__metadata__." + e.getKey(), "a string", e.getValue().getNodeType().toString());
            }
        });
    }

    private static TensorEntry entry(Path file, String name, JsonNode node, long dataLength) {
        String where = "tensor " + name;
        if (!node.isObject()) throw new BadModelFileException(file, where, "an object with dtype, shape and data_offsets", node.getNodeType().toString());
        DType dtype = dtype(file, where, node.get("dtype"));
        JsonNode shapeNode = node.get("shape");
        if (shapeNode == null || !shapeNode.isArray()) {
            throw new BadModelFileException(file, where + " shape", "an array of dimensions", shapeNode == null ? "no such field" : shapeNode.toString());
        }
        int[] dims = new int[shapeNode.size()];
        long elements = 1;
        for (int i = 0; i < dims.length; i++) {
            JsonNode d = shapeNode.get(i);
            if (!d.isIntegralNumber() || !d.canConvertToInt() || d.intValue() < 0) {
                throw new BadModelFileException(file, where + " shape[" + i + "]", "an integer in [0, 2^31)", d.toString());
            }
            dims[i] = d.intValue();
            elements = saturatingMultiply(elements, dims[i]);
        }
        JsonNode offsets = node.get("data_offsets");
        if (offsets == null || !offsets.isArray() || offsets.size() != 2) {
            throw new BadModelFileException(file, where + " data_offsets", "[begin, end]", offsets == null ? "no such field" : offsets.toString());
        }
        long begin = offset(file, where, offsets.get(0));
        long end = offset(file, where, offsets.get(1));
        if (begin > end || end > dataLength) {
            throw new BadModelFileException(file, where + " data_offsets", "0 <= begin <= end <= " + dataLength + " (the data section's length)",
                    "[" + begin + ", " + end + "]");
        }
        long bytes = saturatingMultiply(elements, dtype.byteSize());
        if (bytes != end - begin) {
            throw new BadModelFileException(file, where, (bytes == Long.MAX_VALUE ? "a shape of fewer than 2^63 bytes"
                    : bytes + " bytes for " + java.util.Arrays.toString(dims) + " " + dtype), (end - begin) + " bytes");
        }
        return new TensorEntry(name, dtype, Shape.of(dims), begin, end);
    }

    private static long saturatingMultiply(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static long offset(Path file, String where, JsonNode n) {
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < 0) {
            throw new BadModelFileException(file, where + " data_offsets", "non-negative integers", n.toString());
        }
        return n.longValue();
    }

    private static DType dtype(Path file, String where, JsonNode n) {
        if (n == null || !n.isTextual()) throw new BadModelFileException(file, where + " dtype", "a dtype string such as \"BF16\"", n == null ? "no such field" : n.toString());
        return switch (n.asText()) {
            case "F32" -> DType.F32;
            case "BF16" -> DType.BF16;
            case "F16" -> DType.F16;
            case "I32" -> DType.I32;
            case "U32" -> DType.U32;
            case "U8" -> DType.U8;
            case "BOOL" -> DType.BOOL;
            default -> throw new BadModelFileException(file, where + " dtype", "one of F32, BF16, F16, I32, U32, U8, BOOL", n.asText());
        };
    }

    private static void checkOverlaps(Path file, Map<String, TensorEntry> entries) {
        List<TensorEntry> sorted = new ArrayList<>(entries.values());
        sorted.removeIf(e -> e.byteSize() == 0);
        sorted.sort(Comparator.comparingLong(TensorEntry::begin));
        for (int i = 1; i < sorted.size(); i++) {
            TensorEntry a = sorted.get(i - 1), b = sorted.get(i);
            if (b.begin() < a.end()) {
                throw new BadModelFileException(file, "tensor " + b.name() + " data_offsets",
                        "bytes not shared with another tensor", "an overlap with tensor " + a.name() + " [" + a.begin() + ", " + a.end() + ")");
            }
        }
    }
}
