package panamax.model.support.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import panamax.api.error.BadModelFileException;

/**
 * A Hugging Face JSON config file ({@code config.json}, {@code generation_config.json}) with typed
 * accessors that name the file and field when a value is missing or of the wrong kind. Immutable
 * and thread-safe.
 *
 * {@snippet :
 * HfConfig config = HfConfig.read(directory.resolve("config.json"));
 * int hidden = config.requireInt("hidden_size", 1, 1 << 20);
 * double eps = config.doubleOr("rms_norm_eps", 1e-6);
 * }
 *
 * @param file the file the values came from
 * @param root its top-level object (or a nested object, see {@link #child})
 * @param path the dotted path of {@code root} inside the file, empty at the top
 */
public record HfConfig(Path file, JsonNode root, String path) {
    private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();

    static {
        JSON.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build());
    }

    /**
     * Reads and parses {@code file}.
     *
     * @throws BadModelFileException when it is missing, unreadable or not a JSON object
     */
    public static HfConfig read(Path file) {
        if (!Files.isRegularFile(file)) throw new BadModelFileException(file, "file", "a JSON config file", "no such file");
        try {
            return parse(file, Files.readAllBytes(file));
        } catch (IOException e) {
            throw new BadModelFileException(file, "cannot read it", e);
        }
    }

    /**
     * Parses {@code bytes} as the contents of {@code file}.
     *
     * @throws BadModelFileException when they are not a JSON object
     */
    public static HfConfig parse(Path file, byte[] bytes) {
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (JacksonException e) {
            throw new BadModelFileException(file, "JSON", "a JSON object", "invalid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadModelFileException(file, "cannot parse it", e);
        }
        if (root == null || !root.isObject()) {
            throw new BadModelFileException(file, "top level", "a JSON object", root == null ? "nothing" : root.getNodeType().toString());
        }
        return new HfConfig(file, root, "");
    }

    private String where(String field) {
        return "field " + (path.isEmpty() ? field : path + "." + field);
    }

    /** The field's node, absent when missing or JSON null. */
    public Optional<JsonNode> node(String field) {
        JsonNode n = root.get(field);
        return n == null || n.isNull() ? Optional.empty() : Optional.of(n);
    }

    public boolean has(String field) {
        return node(field).isPresent();
    }

    /** A nested object, absent when missing or null. */
    public Optional<HfConfig> child(String field) {
        return node(field).map(n -> {
            if (!n.isObject()) throw bad(field, "an object", n);
            return new HfConfig(file, n, path.isEmpty() ? field : path + "." + field);
        });
    }

    /** An integer in {@code [min, max]}. */
    public int requireInt(String field, int min, int max) {
        return node(field).map(n -> checkInt(field, n, min, max)).orElseThrow(() -> missing(field, "an integer in [" + min + ", " + max + "]"));
    }

    public int intOr(String field, int fallback, int min, int max) {
        return node(field).map(n -> checkInt(field, n, min, max)).orElse(fallback);
    }

    private int checkInt(String field, JsonNode n, int min, int max) {
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < min || n.intValue() > max) {
            throw bad(field, "an integer in [" + min + ", " + max + "]", n);
        }
        return n.intValue();
    }

    /** A finite number, or the fallback when absent. */
    public double doubleOr(String field, double fallback) {
        return node(field).map(n -> requireNumber(field, n)).orElse(fallback);
    }

    public double requireDouble(String field) {
        return node(field).map(n -> requireNumber(field, n)).orElseThrow(() -> missing(field, "a number"));
    }

    private double requireNumber(String field, JsonNode n) {
        if (!n.isNumber() || !Double.isFinite(n.doubleValue())) throw bad(field, "a finite number", n);
        return n.doubleValue();
    }

    public boolean boolOr(String field, boolean fallback) {
        return node(field).map(n -> {
            if (!n.isBoolean()) throw bad(field, "true or false", n);
            return n.booleanValue();
        }).orElse(fallback);
    }

    public Optional<String> string(String field) {
        return node(field).map(n -> {
            if (!n.isTextual()) throw bad(field, "a string", n);
            return n.asText();
        });
    }

    /** An integer or an array of integers (e.g. {@code eos_token_id}), empty when absent. */
    public int[] intOrInts(String field) {
        Optional<JsonNode> n = node(field);
        if (n.isEmpty()) return new int[0];
        if (n.get().isArray()) {
            int[] out = new int[n.get().size()];
            for (int i = 0; i < out.length; i++) out[i] = checkInt(field + "[" + i + "]", n.get().get(i), 0, Integer.MAX_VALUE);
            return out;
        }
        return new int[]{checkInt(field, n.get(), 0, Integer.MAX_VALUE)};
    }

    /** An error naming this file and {@code field}. */
    public BadModelFileException bad(String field, String expected, Object found) {
        String text = found instanceof JsonNode n ? abbreviate(n.toString()) : String.valueOf(found);
        return new BadModelFileException(file, where(field), expected, text);
    }

    private BadModelFileException missing(String field, String expected) {
        return new BadModelFileException(file, where(field), expected, "no such field");
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }
}
