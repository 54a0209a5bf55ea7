package panamax.server;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import panamax.api.model.ChatMessage;
import panamax.api.model.ToolCall;

/**
 * Turns an OpenAI request body into {@link CompletionParams}, or an {@link ApiException} (400)
 * naming the field that is missing, mistyped, out of range or not supported. Never throws anything
 * else for any input. Stateless and thread-safe.
 */
public final class RequestParser {
    /** Fields clients send that change nothing here. */
    private static final Set<String> IGNORED = Set.of("user", "metadata", "store", "service_tier", "parallel_tool_calls");
    private static final Set<String> CHAT_FIELDS = Set.of("model", "messages", "max_tokens", "max_completion_tokens", "temperature",
            "top_p", "top_k", "min_p", "repetition_penalty", "seed", "stop", "stream", "stream_options", "n", "logprobs",
            "top_logprobs", "frequency_penalty", "presence_penalty", "logit_bias", "response_format", "tools", "tool_choice", "ignore_eos");
    private static final Set<String> COMPLETION_FIELDS = Set.of("model", "prompt", "max_tokens", "temperature", "top_p", "top_k",
            "min_p", "repetition_penalty", "seed", "stop", "stream", "stream_options", "n", "logprobs", "echo", "suffix",
            "best_of", "frequency_penalty", "presence_penalty", "logit_bias", "ignore_eos", "response_format");
    private static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool");
    /** The most stop strings a request may give. */
    static final int MAX_STOPS = 16;
    /** The longest text a stop string may have. */
    static final int MAX_STOP_LENGTH = 256;

    private final ObjectMapper mapper;

    public RequestParser() {
        mapper = new ObjectMapper();
        mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build());
    }

    /** Parses a {@code /v1/chat/completions} body. */
    public CompletionParams chat(byte[] body) {
        JsonNode root = object(body, CHAT_FIELDS);
        List<ChatMessage> messages = messages(root.get("messages"));
        ToolRequest tools = ToolRequestParser.parse(root);
        Integer maxCompletion = integer(root, "max_completion_tokens", 1, Integer.MAX_VALUE);
        Integer maxTokens = integer(root, "max_tokens", 1, Integer.MAX_VALUE); // checked even when the newer field wins
        Integer max = maxCompletion != null ? maxCompletion : maxTokens;
        boolean logprobs = bool(root, "logprobs", false);
        Integer top = integer(root, "top_logprobs", 0, 20);
        if (top != null && !logprobs) throw ApiException.invalid("top_logprobs", "top_logprobs needs \"logprobs\": true");
        return common(root, true, messages, null, null, max, logprobs ? (top == null ? 0 : top) : -1, tools);
    }

    /** Parses a {@code /v1/completions} body. */
    public CompletionParams completion(byte[] body) {
        JsonNode root = object(body, COMPLETION_FIELDS);
        JsonNode prompt = root.get("prompt");
        String text = null;
        int[] ids = null;
        if (!present(prompt)) throw ApiException.invalid("prompt", "prompt: required");
        if (prompt.isTextual()) {
            text = prompt.asText();
        } else if (prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
            text = prompt.get(0).asText();
        } else if (prompt.isArray() && !prompt.isEmpty() && allInts(prompt)) {
            ids = new int[prompt.size()];
            for (int i = 0; i < ids.length; i++) ids[i] = prompt.get(i).asInt();
        } else if (prompt.isArray() && prompt.size() > 1) {
            throw ApiException.invalid("prompt", "prompt: a list of several prompts is not supported; send one request per prompt");
        } else {
            throw ApiException.invalid("prompt", "prompt: expected a string, a list of one string or a list of token ids, found " + kind(prompt));
        }
        if (text != null && text.isEmpty()) throw ApiException.invalid("prompt", "prompt: must not be empty");
        rejectUnlessDefault(root, "echo", "echo is not supported");
        rejectUnlessDefault(root, "suffix", "suffix is not supported");
        integer(root, "best_of", 1, 1); // only the default: one candidate per choice
        Integer max = integer(root, "max_tokens", 1, Integer.MAX_VALUE);
        Integer logprobs = integer(root, "logprobs", 0, 20);
        return common(root, false, null, text, ids, max, logprobs == null ? -1 : logprobs, ToolRequest.ABSENT);
    }

    private CompletionParams common(JsonNode root, boolean chat, List<ChatMessage> messages, String prompt, int[] ids, Integer max,
                                    int topLogprobs, ToolRequest tools) {
        String model = text(root, "model");
        Integer n = integer(root, "n", 1, Integer.MAX_VALUE);
        if (n != null && n != 1) throw ApiException.invalid("n", "n: only 1 choice per request is supported, found " + n);
        Double temperature = number(root, "temperature", 0, 2);
        Double topP = number(root, "top_p", 0, 1);
        if (topP != null && topP == 0) throw ApiException.invalid("top_p", "top_p: expected a value in (0, 1], found 0");
        Integer topK = integer(root, "top_k", -1, Integer.MAX_VALUE); // vLLM's -1 means all, as 0 does here
        Double minP = number(root, "min_p", 0, 1);
        Double penalty = number(root, "repetition_penalty", 0, 10);
        if (penalty != null && penalty == 0) throw ApiException.invalid("repetition_penalty", "repetition_penalty: expected a value in (0, 10], found 0");
        for (String f : List.of("frequency_penalty", "presence_penalty")) {
            Double v = number(root, f, -2, 2);
            if (v != null && v != 0) throw ApiException.invalid(f, f + ": not supported (only 0); use repetition_penalty");
        }
        JsonNode bias = root.get("logit_bias");
        if (present(bias) && !(bias.isObject() && bias.isEmpty())) throw ApiException.invalid("logit_bias", "logit_bias: not supported");
        Long seed = longValue(root, "seed");
        boolean stream = bool(root, "stream", false);
        boolean includeUsage = false;
        JsonNode options = root.get("stream_options");
        if (present(options)) {
            if (!options.isObject()) throw ApiException.invalid("stream_options", "stream_options: expected an object, found " + kind(options));
            if (!stream) throw ApiException.invalid("stream_options", "stream_options: only allowed with \"stream\": true");
            for (Iterator<String> it = options.fieldNames(); it.hasNext(); ) {
                String f = it.next();
                if (!f.equals("include_usage")) throw ApiException.invalid("stream_options." + f, "stream_options." + f + ": unrecognized");
            }
            includeUsage = bool(options, "include_usage", false, "stream_options.include_usage");
        }
        return new CompletionParams(chat, model, messages, prompt, ids, max == null ? OptionalInt.empty() : OptionalInt.of(max),
                temperature == null ? 1 : temperature, topP == null ? 1 : topP, topK == null || topK < 0 ? 0 : topK,
                minP == null ? 0 : minP, penalty == null ? 1 : penalty, seed == null ? OptionalLong.empty() : OptionalLong.of(seed),
                stops(root.get("stop")), stream, includeUsage, topLogprobs, bool(root, "ignore_eos", false),
                ResponseFormats.grammar(root.get("response_format")), tools);
    }

    private JsonNode object(byte[] body, Set<String> fields) {
        JsonNode root;
        try {
            root = mapper.readTree(body);
        } catch (JacksonException e) {
            throw ApiException.invalid(null, "the body is not valid JSON: " + e.getOriginalMessage());
        } catch (java.io.IOException | RuntimeException e) {
            throw ApiException.invalid(null, "the body is not valid JSON: " + e.getMessage());
        }
        if (root == null || root.isMissingNode()) throw ApiException.invalid(null, "the body is empty; expected a JSON object");
        if (!root.isObject()) throw ApiException.invalid(null, "the body must be a JSON object, found " + kind(root));
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!fields.contains(f) && !IGNORED.contains(f)) throw ApiException.invalid(f, "unrecognized request argument: " + f);
        }
        return root;
    }

    private static List<ChatMessage> messages(JsonNode node) {
        if (!present(node)) throw ApiException.invalid("messages", "messages: required");
        if (!node.isArray()) throw ApiException.invalid("messages", "messages: expected an array, found " + kind(node));
        if (node.isEmpty()) throw ApiException.invalid("messages", "messages: must hold at least one message");
        List<ChatMessage> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String at = "messages[" + i + "]";
            JsonNode m = node.get(i);
            if (!m.isObject()) throw ApiException.invalid(at, at + ": expected an object, found " + kind(m));
            JsonNode role = m.get("role");
            if (!present(role) || !role.isTextual()) throw ApiException.invalid(at + ".role", at + ".role: required string");
            if (!ROLES.contains(role.asText())) {
                throw ApiException.invalid(at + ".role", at + ".role: expected one of system, developer, user, assistant, tool, found '"
                        + role.asText() + "'");
            }
            String name = role.asText().equals("developer") ? "system" : role.asText();
            Set<String> fields = switch (name) {
                case "assistant" -> Set.of("role", "content", "name", "tool_calls");
                case "tool" -> Set.of("role", "content", "name", "tool_call_id");
                default -> Set.of("role", "content", "name");
            };
            for (Iterator<Map.Entry<String, JsonNode>> it = m.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                String f = field.getKey();
                if (!fields.contains(f) && present(field.getValue())) { // clients send "refusal": null and the like
                    throw ApiException.invalid(at + "." + f, at + "." + f + ": not supported on a message of role '" + role.asText() + "'");
                }
            }
            if (name.equals("assistant") && present(m.get("tool_calls"))) {
                List<ToolCall> calls = ToolRequestParser.calls(m.get("tool_calls"), at + ".tool_calls");
                String text = present(m.get("content")) ? content(m.get("content"), at + ".content") : "";
                out.add(ChatMessage.assistantCalls(text, calls));
            } else if (name.equals("tool")) {
                JsonNode id = m.get("tool_call_id");
                if (!present(id) || !id.isTextual()) throw ApiException.invalid(at + ".tool_call_id", at + ".tool_call_id: required string");
                out.add(ChatMessage.toolResult(id.asText(), content(m.get("content"), at + ".content")));
            } else {
                out.add(new ChatMessage(name, content(m.get("content"), at + ".content")));
            }
        }
        return out;
    }

    /** A message's text: a string, or an array of {@code {"type":"text","text":...}} parts. */
    private static String content(JsonNode c, String at) {
        if (!present(c)) throw ApiException.invalid(at, at + ": required");
        if (c.isTextual()) return c.asText();
        if (!c.isArray()) throw ApiException.invalid(at, at + ": expected a string or an array of text parts, found " + kind(c));
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < c.size(); i++) {
            JsonNode part = c.get(i);
            String p = at + "[" + i + "]";
            if (!part.isObject() || !part.path("type").isTextual()) throw ApiException.invalid(p, p + ": expected {\"type\": \"text\", \"text\": ...}");
            if (!part.get("type").asText().equals("text")) {
                throw ApiException.invalid(p + ".type", p + ".type: only text parts are supported, found '" + part.get("type").asText() + "'");
            }
            if (!part.path("text").isTextual()) throw ApiException.invalid(p + ".text", p + ".text: required string");
            text.append(part.get("text").asText());
        }
        return text.toString();
    }

    private static List<String> stops(JsonNode node) {
        if (!present(node)) return List.of();
        List<String> out = new ArrayList<>();
        if (node.isTextual()) {
            out.add(node.asText());
        } else if (node.isArray()) {
            if (node.size() > MAX_STOPS) throw ApiException.invalid("stop", "stop: at most " + MAX_STOPS + " strings, found " + node.size());
            for (JsonNode s : node) {
                if (!s.isTextual()) throw ApiException.invalid("stop", "stop: expected strings, found " + kind(s));
                out.add(s.asText());
            }
        } else {
            throw ApiException.invalid("stop", "stop: expected a string or an array of strings, found " + kind(node));
        }
        for (String s : out) {
            if (s.isEmpty()) throw ApiException.invalid("stop", "stop: strings must not be empty");
            if (s.length() > MAX_STOP_LENGTH) throw ApiException.invalid("stop", "stop: strings must be at most " + MAX_STOP_LENGTH + " characters");
        }
        return out;
    }

    private static void rejectUnlessDefault(JsonNode root, String field, String message) {
        JsonNode v = root.get(field);
        if (!present(v)) return;
        boolean isDefault = (v.isBoolean() && !v.asBoolean()) || (v.isTextual() && (v.asText().isEmpty() || v.asText().equals("none")))
                || (v.isArray() && v.isEmpty());
        if (!isDefault) throw ApiException.invalid(field, field + ": " + message);
    }

    private static boolean present(JsonNode n) {
        return n != null && !n.isNull() && !n.isMissingNode();
    }

    private static String text(JsonNode root, String field) {
        JsonNode v = root.get(field);
        if (!present(v)) return null;
        if (!v.isTextual()) throw ApiException.invalid(field, field + ": expected a string, found " + kind(v));
        return v.asText();
    }

    private static boolean bool(JsonNode root, String field, boolean otherwise) {
        return bool(root, field, otherwise, field);
    }

    private static boolean bool(JsonNode root, String field, boolean otherwise, String name) {
        JsonNode v = root.get(field);
        if (!present(v)) return otherwise;
        if (!v.isBoolean()) throw ApiException.invalid(name, name + ": expected true or false, found " + kind(v));
        return v.asBoolean();
    }

    private static Integer integer(JsonNode root, String field, int min, int max) {
        JsonNode v = root.get(field);
        if (!present(v)) return null;
        if (!v.isIntegralNumber() && !(v.isNumber() && v.asDouble() == Math.rint(v.asDouble()))) {
            throw ApiException.invalid(field, field + ": expected an integer, found " + kind(v));
        }
        if (!v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
            throw ApiException.invalid(field, field + ": expected an integer in [" + min + ", " + max + "], found " + v);
        }
        return (int) v.asLong();
    }

    private static Long longValue(JsonNode root, String field) {
        JsonNode v = root.get(field);
        if (!present(v)) return null;
        if (!v.isIntegralNumber() || !v.canConvertToLong()) throw ApiException.invalid(field, field + ": expected a 64-bit integer, found " + v);
        return v.asLong();
    }

    private static Double number(JsonNode root, String field, double min, double max) {
        JsonNode v = root.get(field);
        if (!present(v)) return null;
        if (!v.isNumber()) throw ApiException.invalid(field, field + ": expected a number, found " + kind(v));
        double d = v.asDouble();
        if (!(d >= min && d <= max)) throw ApiException.invalid(field, field + ": expected a number in [" + min + ", " + max + "], found " + v);
        return d;
    }

    private static boolean allInts(JsonNode array) {
        for (JsonNode e : array) if (!e.isIntegralNumber() || !e.canConvertToInt() || e.asInt() < 0) return false;
        return true;
    }

    static String kind(JsonNode n) {
        JsonNodeType t = n.getNodeType();
        return switch (t) {
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case NULL -> "null";
            default -> t.name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
