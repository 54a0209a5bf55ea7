package panamax.models.tokenizer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import panamax.api.error.BadModelFileException;

/**
 * The bytes each token of a {@code tokenizer.json} stands for, read from its vocabulary and decoder
 * rather than by decoding ids one at a time (which loses tokens that hold part of a UTF-8
 * character). Byte-level BPE (GPT-2's byte-to-character table) and SentencePiece-style BPE with
 * byte fallback ({@code <0xHH>} pieces, {@code ▁} for a space) are read exactly; other decoders give
 * null and the caller decodes instead. Added tokens give their content, special ones null.
 */
final class TokenPieces {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TokenPieces() {
    }

    /** Per id its bytes (null for special tokens and ids with none), or null when the decoder is not one of the two read here. */
    static byte[][] read(Path tokenizerJson, int vocabSize, Map<String, Integer> added, Set<Integer> special) {
        JsonNode decoder = null;
        Map<String, Integer> vocab = null;
        // Streamed: a large vocabulary's merges list would cost seconds as a tree, and only two fields are needed.
        try (JsonParser p = JSON.getFactory().createParser(tokenizerJson.toFile())) {
            if (p.nextToken() != JsonToken.START_OBJECT) return null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("decoder")) {
                    decoder = JSON.readTree(p);
                } else if (field.equals("model") && value == JsonToken.START_OBJECT) {
                    vocab = modelVocab(p);
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new BadModelFileException(tokenizerJson, "not valid JSON: " + e.getMessage(), e);
        }
        if (decoder == null || vocab == null) return null;
        boolean byteLevel = usesDecoder(decoder, "ByteLevel");
        boolean byteFallback = usesDecoder(decoder, "ByteFallback");
        if (!byteLevel && !byteFallback) return null;
        int[] byteOf = byteLevel ? gpt2ByteDecoder() : null;
        byte[][] table = new byte[vocabSize][];
        for (Map.Entry<String, Integer> e : vocab.entrySet()) {
            int id = e.getValue();
            if (id < 0 || id >= vocabSize) continue;
            table[id] = byteLevel ? byteLevelBytes(e.getKey(), byteOf) : pieceBytes(e.getKey());
        }
        for (Map.Entry<String, Integer> e : added.entrySet()) {
            int id = e.getValue();
            if (id < 0 || id >= vocabSize) continue;
            table[id] = special.contains(id) ? null : e.getKey().getBytes(StandardCharsets.UTF_8);
        }
        return table;
    }

    /** The {@code vocab} object of the {@code model} object the parser is at (token to id), or null when it is not an object. */
    private static Map<String, Integer> modelVocab(JsonParser p) throws IOException {
        Map<String, Integer> vocab = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("vocab") && value == JsonToken.START_OBJECT) {
                vocab = new java.util.HashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String token = p.currentName();
                    p.nextToken();
                    vocab.put(token, p.getIntValue());
                }
            } else {
                p.skipChildren();
            }
        }
        return vocab;
    }

    private static boolean usesDecoder(JsonNode decoder, String type) {
        if (type.equals(decoder.path("type").asText())) return true;
        for (JsonNode d : decoder.path("decoders")) if (usesDecoder(d, type)) return true;
        return false;
    }

    /** GPT-2's table, inverted: the byte each of the 256 printable stand-in characters means (-1: none). */
    private static int[] gpt2ByteDecoder() {
        int[] byteOf = new int[512];
        java.util.Arrays.fill(byteOf, -1);
        int extra = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            byteOf[printable ? b : 256 + extra++] = b;
        }
        return byteOf;
    }

    private static byte[] byteLevelBytes(String piece, int[] byteOf) {
        byte[] out = new byte[piece.length()];
        for (int i = 0; i < piece.length(); i++) {
            char c = piece.charAt(i);
            if (c >= byteOf.length || byteOf[c] < 0) return piece.getBytes(StandardCharsets.UTF_8); // not a byte-level piece
            out[i] = (byte) byteOf[c];
        }
        return out;
    }

    private static byte[] pieceBytes(String piece) {
        if (piece.length() == 6 && piece.startsWith("<0x") && piece.endsWith(">")) {
            try {
                return new byte[]{(byte) Integer.parseInt(piece.substring(3, 5), 16)};
            } catch (NumberFormatException notAByte) {
                // an ordinary piece that looks like one
            }
        }
        return piece.replace('\u2581', ' ').getBytes(StandardCharsets.UTF_8);
    }
}
