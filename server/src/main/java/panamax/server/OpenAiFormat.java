package panamax.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import panamax.api.model.Tokenizer;
import panamax.api.model.ToolCall;
import panamax.engine.generate.FinishReason;
import panamax.engine.serve.Completion;
import panamax.engine.serve.TokenEvent;

/**
 * Writes OpenAI's response objects: {@code chat.completion}, {@code chat.completion.chunk} and
 * {@code text_completion} (whole and streamed), usage, log-probabilities and error bodies.
 * Thread-safe.
 *
 * @param mapper    serializes the objects
 * @param tokenizer names tokens in log-probabilities
 * @param modelId   the served model's id
 */
record OpenAiFormat(ObjectMapper mapper, Tokenizer tokenizer, String modelId) {
    /** One answer being built: its id, creation time and kind. */
    record Answer(String id, long created, boolean chat) {
    }

    Answer answer(boolean chat, long ticket) {
        return new Answer((chat ? "chatcmpl-" : "cmpl-") + Long.toHexString(System.nanoTime()) + "-" + ticket,
                System.currentTimeMillis() / 1000, chat);
    }

    /** A whole (not streamed) answer. */
    ObjectNode whole(Answer a, Completion c, List<TokenEvent> tokens, boolean logprobs, ToolAnswer tools) {
        ObjectNode root = header(a, a.chat() ? "chat.completion" : "text_completion");
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        if (a.chat()) {
            ObjectNode message = choice.putObject("message");
            message.put("role", "assistant");
            if (!tools.called()) {
                message.put("content", c.result().text());
            } else {
                // text around the calls, if any; OpenAI sends null beside calls
                if (tools.content().isBlank()) message.putNull("content"); else message.put("content", tools.content().strip());
                ArrayNode calls = message.putArray("tool_calls");
                for (ToolCall call : tools.calls()) {
                    ObjectNode entry = calls.addObject();
                    entry.put("id", call.id());
                    entry.put("type", "function");
                    entry.putObject("function").put("name", call.name()).put("arguments", call.arguments());
                }
            }
        } else {
            choice.put("text", c.result().text());
        }
        if (logprobs) choice.set("logprobs", logprobs(a, tokens)); else choice.putNull("logprobs");
        choice.put("finish_reason", finishReason(c, tools));
        root.set("usage", usage(c));
        root.set("panamax", mapper.valueToTree(c.plan().toMap()));
        return root;
    }

    /** A streamed piece: the role (first chunk of a chat), a token's text and log-probabilities, or the finish reason. */
    ObjectNode chunk(Answer a, String text, TokenEvent token, boolean first, String finish, boolean usageField) {
        ObjectNode root = header(a, a.chat() ? "chat.completion.chunk" : "text_completion");
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        if (a.chat()) {
            ObjectNode delta = choice.putObject("delta");
            if (first) delta.put("role", "assistant");
            if (text != null) delta.put("content", text);
        } else {
            choice.put("text", text == null ? "" : text);
        }
        if (token != null && !Double.isNaN(token.logprob())) choice.set("logprobs", logprobs(a, List.of(token))); else choice.putNull("logprobs");
        if (finish == null) choice.putNull("finish_reason"); else choice.put("finish_reason", finish);
        if (usageField) root.putNull("usage");
        return root;
    }

    /**
     * The JSON of an answer's plain text chunks (not a chat's first, no log-probabilities, no finish reason): one
     * such chunk serialized once with a marker for its text, and each token's text escaped into the marker's place,
     * byte for byte what serializing {@link #chunk(Answer, String, TokenEvent, boolean, String, boolean)} writes.
     * A streamed token took a tree of nodes and a JSON generator before (a third of a responder thread's CPU time).
     * Null when the marker is also a whole value elsewhere in the chunk (a model id that is the marker).
     */
    TextChunks textChunks(Answer a, boolean usageField) {
        String marker = "\u0001panamax-text\u0001";
        try {
            String whole = mapper.writeValueAsString(chunk(a, marker, null, false, null, usageField));
            String quoted = mapper.writeValueAsString(marker);
            int at = whole.indexOf(quoted);
            // the marker elsewhere too (a model id holding it): no template, every chunk from its tree
            if (at < 0 || whole.indexOf(quoted, at + 1) >= 0) return null;
            return new TextChunks(whole.substring(0, at + 1), whole.substring(at + quoted.length() - 1));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@link #textChunks}: the chunk's JSON before and after its text (each ending or starting with the text's quote). */
    record TextChunks(String prefix, String suffix) {
        private static final com.fasterxml.jackson.core.io.JsonStringEncoder ESCAPES = com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance();

        /** The chunk carrying {@code text}, escaped as Jackson's generators escape a string. */
        String json(String text) {
            return framed("", text, "");
        }

        /** The server-sent event of that chunk: {@code data: JSON} and its blank line, built in one pass. */
        String event(String text) {
            return framed("data: ", text, "\n\n");
        }

        private String framed(String before, String text, String after) {
            char[] escaped = ESCAPES.quoteAsString(text);
            return new StringBuilder(before.length() + prefix.length() + escaped.length + suffix.length() + after.length())
                    .append(before).append(prefix).append(escaped).append(suffix).append(after).toString();
        }
    }

    /** A streamed piece of a chat answer: text, or part of a tool call; and the token's log-probabilities. */
    ObjectNode chunk(Answer a, ToolAnswer.Piece piece, TokenEvent token, boolean first, boolean usageField) {
        if (piece instanceof ToolAnswer.Text t) return chunk(a, t.text(), token, first, null, usageField);
        ToolAnswer.CallPart part = (ToolAnswer.CallPart) piece;
        ObjectNode root = chunk(a, null, token, first, null, usageField);
        ObjectNode call = ((ObjectNode) root.get("choices").get(0).get("delta")).putArray("tool_calls").addObject();
        call.put("index", part.index());
        if (part.id() != null) call.put("id", part.id()).put("type", "function");
        ObjectNode function = call.putObject("function");
        if (part.name() != null) function.put("name", part.name());
        function.put("arguments", part.arguments());
        return root;
    }

    /** The last chunk of a stream with {@code stream_options.include_usage}: no choices, the usage. */
    ObjectNode usageChunk(Answer a, Completion c) {
        ObjectNode root = header(a, a.chat() ? "chat.completion.chunk" : "text_completion");
        root.putArray("choices");
        root.set("usage", usage(c));
        return root;
    }

    ObjectNode usage(Completion c) {
        ObjectNode usage = mapper.createObjectNode();
        usage.put("prompt_tokens", c.promptTokens());
        usage.put("completion_tokens", c.completionTokens());
        usage.put("total_tokens", c.promptTokens() + c.completionTokens());
        usage.putObject("prompt_tokens_details").put("cached_tokens", c.cachedTokens());
        return usage;
    }

    static String finishReason(Completion c) {
        return c.result().finish() == FinishReason.LENGTH ? "length" : "stop";
    }

    /** {@code tool_calls} when the answer called tools, unless the limit cut a forced call's arguments short. */
    static String finishReason(Completion c, ToolAnswer tools) {
        boolean cut = c.result().finish() == FinishReason.LENGTH;
        if (tools.called() && !(cut && tools.forcedName() != null)) return "tool_calls";
        return finishReason(c);
    }

    /** OpenAI's error body. */
    static ObjectNode error(ObjectMapper mapper, ApiException e) {
        ObjectNode root = mapper.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", e.getMessage());
        error.put("type", e.type());
        if (e.param() == null) error.putNull("param"); else error.put("param", e.param());
        if (e.code() == null) error.putNull("code"); else error.put("code", e.code());
        return root;
    }

    private ObjectNode header(Answer a, String object) {
        ObjectNode root = mapper.createObjectNode();
        root.put("id", a.id());
        root.put("object", object);
        root.put("created", a.created());
        root.put("model", modelId);
        root.put("system_fingerprint", "panamax");
        return root;
    }

    /** Chat: {@code {"content": [{token, logprob, bytes, top_logprobs}]}}; completions: the legacy parallel lists. */
    private ObjectNode logprobs(Answer a, List<TokenEvent> tokens) {
        ObjectNode out = mapper.createObjectNode();
        if (a.chat()) {
            ArrayNode content = out.putArray("content");
            for (TokenEvent t : tokens) {
                ObjectNode entry = content.addObject();
                describe(entry, t.id(), t.logprob());
                ArrayNode top = entry.putArray("top_logprobs");
                for (TokenEvent.Alternative alt : t.top()) describe(top.addObject(), alt.id(), alt.logprob());
            }
        } else {
            ArrayNode names = out.putArray("tokens"), values = out.putArray("token_logprobs"), tops = out.putArray("top_logprobs");
            ArrayNode offsets = out.putArray("text_offset");
            int offset = 0;
            for (TokenEvent t : tokens) {
                String name = token(t.id());
                names.add(name);
                values.add(t.logprob());
                ObjectNode top = tops.addObject();
                for (TokenEvent.Alternative alt : t.top()) top.put(token(alt.id()), alt.logprob());
                offsets.add(offset);
                offset += t.text().length();
            }
        }
        return out;
    }

    private void describe(ObjectNode entry, int id, double logprob) {
        String name = token(id);
        entry.put("token", name);
        entry.put("logprob", logprob);
        ArrayNode bytes = entry.putArray("bytes");
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) bytes.add(b & 0xff);
    }

    private String token(int id) {
        return tokenizer.decode(new int[]{id}, false);
    }
}
