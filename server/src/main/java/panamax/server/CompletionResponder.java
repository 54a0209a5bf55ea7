package panamax.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import panamax.engine.serve.Completion;
import panamax.engine.serve.RequestPlan;
import panamax.engine.serve.RequestRejectedException;
import panamax.engine.serve.TokenEvent;

/**
 * Answers one submitted completion on the request's thread: waits for the row's events and writes
 * either one JSON object or a stream of server-sent events ending with {@code data: [DONE]}. A
 * client that goes away (a failed write) cancels the row, so the scheduler frees it at its next
 * step; while nothing is generated a stream writes an SSE comment now and then to notice that.
 */
final class CompletionResponder {
    private final OpenAiFormat format;
    private final CompletionService.Submitted submitted;
    private final CompletionParams params;
    private final long keepAliveMillis;

    CompletionResponder(OpenAiFormat format, CompletionService.Submitted submitted, CompletionParams params, Duration keepAlive) {
        this.format = format;
        this.submitted = submitted;
        this.params = params;
        this.keepAliveMillis = Math.max(10, keepAlive.toMillis());
    }

    void respond(ServerResponse res) throws IOException {
        try {
            if (params.stream()) stream(res); else whole(res);
        } catch (InterruptedException e) {
            submitted.ticket().cancel();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for tokens", e);
        } catch (IOException | RuntimeException e) {
            submitted.ticket().cancel(); // the client went away (Helidon reports a failed write as a RuntimeException)
            throw e;
        }
    }

    private void whole(ServerResponse res) throws InterruptedException, IOException {
        List<TokenEvent> tokens = new ArrayList<>();
        ToolAnswer tools = submitted.tools();
        OpenAiFormat.Answer answer = format.answer(params.chat(), submitted.ticket().id());
        while (true) {
            Object event = submitted.events().next(keepAliveMillis);
            if (event instanceof TokenEvent t) {
                if (params.topLogprobs() >= 0) tokens.add(t);
                tools.token(t.id(), t.text());
            }
            if (event instanceof RuntimeException e) throw failure(e);
            if (event instanceof Completion c) {
                tools.finish();
                res.status(200);
                res.headers().contentType(io.helidon.common.media.type.MediaTypes.APPLICATION_JSON);
                res.send(format.mapper().writeValueAsBytes(format.whole(answer, c, tokens, params.topLogprobs() >= 0, tools)));
                return;
            }
        }
    }

    private void stream(ServerResponse res) throws InterruptedException, IOException {
        OpenAiFormat.Answer answer = format.answer(params.chat(), submitted.ticket().id());
        ToolAnswer tools = submitted.tools();
        res.status(200);
        res.headers().set(HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8"));
        res.headers().set(HeaderValues.create(HeaderNames.CACHE_CONTROL, "no-cache"));
        OpenAiFormat.TextChunks text = format.textChunks(answer, params.includeUsage());
        try (OutputStream out = res.outputStream()) {
            boolean first = true;
            while (true) {
                Object event = submitted.events().next(keepAliveMillis);
                if (event == null) {
                    write(out, ": keep-alive\n\n");
                } else if (event instanceof RequestPlan) {
                    if (params.chat()) {
                        data(out, format.chunk(answer, "", null, true, null, params.includeUsage()));
                        first = false;
                    }
                } else if (event instanceof TokenEvent t) {
                    boolean logprobs = params.topLogprobs() >= 0;
                    List<ToolAnswer.Piece> pieces = tools.token(t.id(), t.text());
                    if (pieces.isEmpty() && logprobs) pieces = List.of(new ToolAnswer.Text(""));
                    for (int i = 0; i < pieces.size(); i++) {
                        TokenEvent withLogprobs = logprobs && i == 0 ? t : null;
                        if (text != null && !first && withLogprobs == null && pieces.get(i) instanceof ToolAnswer.Text plain) {
                            write(out, text.event(plain.text()));
                        } else {
                            data(out, format.chunk(answer, pieces.get(i), withLogprobs, first, params.includeUsage()));
                        }
                        first = false;
                    }
                } else if (event instanceof Completion c) {
                    for (ToolAnswer.Piece piece : tools.finish()) {
                        data(out, format.chunk(answer, piece, null, first, params.includeUsage()));
                        first = false;
                    }
                    data(out, format.chunk(answer, null, null, first, OpenAiFormat.finishReason(c, tools), params.includeUsage()));
                    if (params.includeUsage()) data(out, format.usageChunk(answer, c));
                    write(out, "data: [DONE]\n\n");
                    return;
                } else if (event instanceof RuntimeException e) {
                    ApiException failure = failure(e);
                    data(out, OpenAiFormat.error(format.mapper(), failure));
                    write(out, "data: [DONE]\n\n");
                    return;
                }
            }
        }
    }

    private static ApiException failure(RuntimeException e) {
        if (e instanceof RequestRejectedException r) return CompletionService.rejected(r);
        return new ApiException(500, "server_error", null, null, "generation failed: " + e.getMessage(), null);
    }

    private void data(OutputStream out, ObjectNode chunk) throws IOException {
        write(out, "data: " + format.mapper().writeValueAsString(chunk) + "\n\n");
    }

    /** Writes {@code text}, and sends what is written unless another event is already waiting (one send for a burst). */
    private void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        if (!submitted.events().ready()) out.flush();
    }
}
