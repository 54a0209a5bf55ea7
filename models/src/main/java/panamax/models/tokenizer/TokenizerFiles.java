package panamax.models.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import panamax.api.error.BadModelFileException;

/**
 * What a Hugging Face model directory says about its tokenizer besides the tokenizer itself:
 * added tokens and vocabulary size (from {@code tokenizer.json}), the BOS / EOS tokens and the chat
 * template (from {@code tokenizer_config.json} or {@code chat_template.jinja}), and extra EOS ids
 * (from {@code generation_config.json}).
 *
 * @param vocabSize    one more than the largest id in the vocabulary or the added tokens
 * @param addedTokens  added tokens by content
 * @param specialIds   ids of added tokens marked special
 * @param bosToken     the BOS token's content, if any
 * @param eosToken     the EOS token's content, if any
 * @param eosIds       every id that ends a generation
 * @param chatTemplate the default chat template, if any
 */
record TokenizerFiles(int vocabSize, Map<String, Integer> addedTokens, Set<Integer> specialIds,
                      Optional<String> bosToken, Optional<String> eosToken, Set<Integer> eosIds,
                      Optional<String> chatTemplate) {
    private static final ObjectMapper JSON = new ObjectMapper();

    static TokenizerFiles read(Path directory) {
        Path tokenizerJson = directory.resolve("tokenizer.json");
        JsonNode tokenizer = readJson(tokenizerJson).orElseThrow(() -> new BadModelFileException(tokenizerJson,
                "file", "a Hugging Face tokenizer.json", "no such file"));
        Map<String, Integer> added = new LinkedHashMap<>();
        Set<Integer> special = new LinkedHashSet<>();
        int maxId = -1;
        for (JsonNode token : tokenizer.path("added_tokens")) {
            int id = requireInt(tokenizerJson, token.path("id"), "added_tokens[].id");
            added.put(token.path("content").asText(), id);
            if (token.path("special").asBoolean(false)) special.add(id);
            maxId = Math.max(maxId, id);
        }
        JsonNode vocab = tokenizer.path("model").path("vocab");
        if (vocab.isObject()) {
            for (JsonNode id : vocab) maxId = Math.max(maxId, id.asInt());
        } else if (vocab.isArray()) {
            maxId = Math.max(maxId, vocab.size() - 1);
        } else {
            throw new BadModelFileException(tokenizerJson, "model.vocab", "an object or array", vocab.getNodeType().toString());
        }

        Path configPath = directory.resolve("tokenizer_config.json");
        JsonNode config = readJson(configPath).orElse(JSON.createObjectNode());
        // added_tokens_decoder may list tokens tokenizer.json lacks (older exports); merge them in.
        config.path("added_tokens_decoder").properties().forEach(e -> {
            int id;
            try {
                id = Integer.parseInt(e.getKey());
            } catch (NumberFormatException notAnId) {
                throw new BadModelFileException(configPath, "added_tokens_decoder", "token ids as keys", "\"" + e.getKey() + "\"");
            }
            added.putIfAbsent(e.getValue().path("content").asText(), id);
            if (e.getValue().path("special").asBoolean(false)) special.add(id);
        });
        Optional<String> bos = tokenContent(config.path("bos_token"));
        Optional<String> eos = tokenContent(config.path("eos_token"));
        Set<Integer> eosIds = new LinkedHashSet<>();
        eos.map(added::get).ifPresent(eosIds::add);
        readJson(directory.resolve("generation_config.json")).ifPresent(gen -> {
            JsonNode ids = gen.path("eos_token_id");
            if (ids.isInt()) eosIds.add(ids.asInt());
            for (JsonNode id : ids) eosIds.add(id.asInt());
        });
        int vocabSize = maxId + 1;
        for (Integer id : eosIds) {
            if (id < 0 || id >= vocabSize) {
                throw new BadModelFileException(directory.resolve("generation_config.json"), "eos_token_id",
                        "an id below the vocabulary size " + vocabSize, String.valueOf(id));
            }
        }
        return new TokenizerFiles(vocabSize, added, special, bos, eos, eosIds, chatTemplate(directory, config, configPath));
    }

    /** The chat template of {@code directory} alone, without reading {@code tokenizer.json}. */
    static Optional<String> chatTemplate(Path directory) {
        Path configPath = directory.resolve("tokenizer_config.json");
        return chatTemplate(directory, readJson(configPath).orElse(JSON.createObjectNode()), configPath);
    }

    private static Optional<String> chatTemplate(Path directory, JsonNode config, Path configPath) {
        Path jinja = directory.resolve("chat_template.jinja");
        if (Files.isRegularFile(jinja)) {
            try {
                return Optional.of(Files.readString(jinja));
            } catch (IOException e) {
                throw new BadModelFileException(jinja, "cannot read: " + e.getMessage(), e);
            }
        }
        JsonNode template = config.path("chat_template");
        if (template.isTextual()) return Optional.of(template.asText());
        if (template.isArray()) {
            // A list of named templates: transformers uses the one named "default".
            for (JsonNode named : template) {
                if ("default".equals(named.path("name").asText())) return Optional.of(named.path("template").asText());
            }
            throw new BadModelFileException(configPath, "chat_template", "a template named \"default\"", "none");
        }
        if (!template.isMissingNode() && !template.isNull()) {
            throw new BadModelFileException(configPath, "chat_template", "a string or a list of named templates",
                    template.getNodeType().toString());
        }
        return Optional.empty();
    }

    /** A token given as a string or as a serialized AddedToken object with a {@code content} field. */
    private static Optional<String> tokenContent(JsonNode node) {
        if (node.isTextual()) return Optional.of(node.asText());
        if (node.isObject() && node.path("content").isTextual()) return Optional.of(node.path("content").asText());
        return Optional.empty();
    }

    private static int requireInt(Path file, JsonNode node, String field) {
        if (!node.canConvertToInt()) throw new BadModelFileException(file, field, "an integer", node.toString());
        return node.asInt();
    }

    private static Optional<JsonNode> readJson(Path file) {
        if (!Files.isRegularFile(file)) return Optional.empty();
        try {
            return Optional.of(JSON.readTree(file.toFile()));
        } catch (IOException e) {
            throw new BadModelFileException(file, "not valid JSON: " + e.getMessage(), e);
        }
    }
}
