package panamax.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.chat.completions.ChatCompletionTokenLogprob;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.completions.CompletionUsage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import panamax.engine.serve.ServingConfig;

/**
 * Real OpenAI clients (openai-java, LangChain4j) against a server with an API key that serves the
 * demo model: what they parse out of the answers must be real and consistent.
 */
class OpenAiClientsTest {
    private static final String KEY = "sk-clients-test";
    private static DemoServer demo;
    private static OpenAIClient openai;

    @BeforeAll
    static void start() {
        demo = DemoServer.serving(ServerOptions.defaults().withApiKey(KEY), ServingConfig.defaults().withMaxBatch(4));
        openai = OpenAIOkHttpClient.builder().baseUrl(demo.base() + "/v1").apiKey(KEY).maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        if (openai != null) openai.close();
        if (demo != null) demo.close();
    }

    private static ChatCompletionCreateParams.Builder chat(String user) {
        return ChatCompletionCreateParams.builder().model(DemoServer.MODEL).addUserMessage(user);
    }

    private static void assertUsage(CompletionUsage usage, long maxTokens) {
        assertTrue(usage.promptTokens() > 0, "prompt tokens: " + usage);
        assertTrue(usage.completionTokens() > 0 && usage.completionTokens() <= maxTokens, "completion tokens: " + usage);
        assertEquals(usage.promptTokens() + usage.completionTokens(), usage.totalTokens(), "total tokens: " + usage);
    }

    @Test
    void aBlockingChatCompletionHasTextAFinishReasonAndConsistentUsage() {
        ChatCompletion c = openai.chat().completions().create(chat("Tell me about the sea.").maxCompletionTokens(12).seed(7)
                .temperature(0.8).build());
        assertEquals(1, c.choices().size());
        ChatCompletion.Choice choice = c.choices().get(0);
        assertFalse(choice.message().content().orElse("").isEmpty(), "empty answer: " + c);
        assertTrue(List.of(ChatCompletion.Choice.FinishReason.STOP, ChatCompletion.Choice.FinishReason.LENGTH).contains(choice.finishReason()));
        assertEquals(DemoServer.MODEL, c.model());
        assertUsage(c.usage().orElseThrow(), 12);
    }

    @Test
    void aStreamedChatCompletionConcatenatesToTheBlockingAnswerForTheSameSeed() {
        ChatCompletionCreateParams params = chat("Write a line about rivers.").maxCompletionTokens(16).seed(1234).temperature(0.8).build();
        String whole = openai.chat().completions().create(params).choices().get(0).message().content().orElseThrow();
        StringBuilder streamed = new StringBuilder();
        List<ChatCompletionChunk.Choice.FinishReason> finishes = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> s = openai.chat().completions().createStreaming(params)) {
            s.stream().forEach(chunk -> chunk.choices().forEach(ch -> {
                ch.delta().content().ifPresent(streamed::append);
                ch.finishReason().ifPresent(finishes::add);
            }));
        }
        assertFalse(whole.isEmpty());
        assertEquals(whole, streamed.toString());
        assertEquals(1, finishes.size(), "one finish reason per stream: " + finishes);
        String again = openai.chat().completions().create(params).choices().get(0).message().content().orElseThrow();
        assertEquals(whole, again, "a seeded request is deterministic");
    }

    @Test
    void maxTokensEndsTheAnswerWithFinishReasonLength() {
        ChatCompletion c = openai.chat().completions().create(chat("Count to one hundred.").maxCompletionTokens(3).seed(3)
                .temperature(0.0).build());
        ChatCompletion.Choice choice = c.choices().get(0);
        CompletionUsage usage = c.usage().orElseThrow();
        assertUsage(usage, 3);
        if (choice.finishReason().equals(ChatCompletion.Choice.FinishReason.LENGTH)) {
            assertEquals(3, usage.completionTokens());
        } else {
            fail("the demo model stopped within 3 tokens; pick another prompt: " + c);
        }
    }

    @Test
    void aStopStringEndsTheAnswerBeforeIt() {
        ChatCompletionCreateParams free = chat("Say something long.").maxCompletionTokens(24).seed(11).temperature(0.8).build();
        String text = openai.chat().completions().create(free).choices().get(0).message().content().orElseThrow();
        assertTrue(text.length() >= 4, "too short to cut: '" + text + "'");
        // a stop taken from the middle of the free answer: the same seeded answer must end just before it
        int at = text.length() / 2;
        String stop = text.substring(at, at + 2);
        int first = text.indexOf(stop);
        ChatCompletion c = openai.chat().completions().create(free.toBuilder().stop(stop).build());
        String cut = c.choices().get(0).message().content().orElseThrow();
        assertEquals(text.substring(0, first), cut, "stop '" + stop + "'");
        assertEquals(ChatCompletion.Choice.FinishReason.STOP, c.choices().get(0).finishReason());
    }

    @Test
    void logprobsAndTopLogprobsArePresentSortedAndAtMostZero() {
        ChatCompletion c = openai.chat().completions().create(chat("Name a colour.").maxCompletionTokens(6).seed(5).temperature(0.8)
                .logprobs(true).topLogprobs(3).build());
        List<ChatCompletionTokenLogprob> tokens = c.choices().get(0).logprobs().orElseThrow().content().orElseThrow();
        assertEquals(c.usage().orElseThrow().completionTokens(), tokens.size(), "one entry per generated token");
        for (ChatCompletionTokenLogprob t : tokens) {
            assertTrue(t.logprob() <= 0, "logprob " + t);
            assertEquals(3, t.topLogprobs().size(), "top logprobs: " + t);
            double previous = 0;
            for (ChatCompletionTokenLogprob.TopLogprob top : t.topLogprobs()) {
                assertTrue(top.logprob() <= previous, "sorted and at most 0: " + t.topLogprobs());
                previous = top.logprob();
            }
            assertTrue(t.logprob() <= t.topLogprobs().get(0).logprob() + 1e-6, "the best alternative is at least as likely: " + t);
        }
        String joined = String.join("", tokens.stream().map(ChatCompletionTokenLogprob::token).toList());
        assertEquals(c.choices().get(0).message().content().orElseThrow(), joined);
    }

    @Test
    void includeUsageEndsTheStreamWithAUsageChunkWithoutChoices() {
        ChatCompletionCreateParams params = chat("Hello there.").maxCompletionTokens(8).seed(9).temperature(0.8)
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build();
        List<ChatCompletionChunk> chunks = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> s = openai.chat().completions().createStreaming(params)) {
            s.stream().forEach(chunks::add);
        }
        ChatCompletionChunk last = chunks.getLast();
        assertTrue(last.choices().isEmpty(), "last chunk: " + last);
        assertUsage(last.usage().orElseThrow(), 8);
        for (ChatCompletionChunk c : chunks.subList(0, chunks.size() - 1)) {
            assertFalse(c.choices().isEmpty(), "only the last chunk has no choices: " + c);
            assertTrue(c.usage().isEmpty(), "only the last chunk has usage: " + c);
        }
    }

    @Test
    void aSecondTurnReusesTheFirstTurnFromThePrefixCache() {
        String question = "Please describe, in some detail, the weather in a small mountain village during a long winter.";
        ChatCompletion first = openai.chat().completions().create(chat(question).maxCompletionTokens(8).seed(21).temperature(0.8).build());
        String answer = first.choices().get(0).message().content().orElseThrow();
        ChatCompletion second = openai.chat().completions().create(chat(question).addAssistantMessage(answer)
                .addUserMessage("And in summer?").maxCompletionTokens(8).seed(22).temperature(0.8).build());
        CompletionUsage usage = second.usage().orElseThrow();
        long cached = usage.promptTokensDetails().orElseThrow().cachedTokens().orElse(0L);
        assertTrue(cached > 0, "second turn cached tokens: " + usage);
        assertTrue(cached < usage.promptTokens(), "the new turn itself is not cached: " + usage);
        assertTrue(usage.promptTokens() > first.usage().orElseThrow().promptTokens());
    }

    @Test
    void aCompletionsCallGivesTextAndUsage() {
        Completion c = openai.completions().create(CompletionCreateParams.builder().model(DemoServer.MODEL)
                .prompt("Once upon a time").maxTokens(10).seed(4).temperature(0.8).build());
        assertEquals(1, c.choices().size());
        assertFalse(c.choices().get(0).text().isEmpty(), "empty completion: " + c);
        assertUsage(c.usage().orElseThrow(), 10);
    }

    @Test
    void langChain4jChatModelSendsTheKeyAndGetsAnAnswer() {
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(demo.base() + "/v1").apiKey(KEY).modelName(DemoServer.MODEL)
                .maxTokens(10).seed(8).temperature(0.8).maxRetries(0).build();
        ChatResponse r = model.chat(dev.langchain4j.model.chat.request.ChatRequest.builder()
                .messages(dev.langchain4j.data.message.UserMessage.from("Hi there")).build());
        assertFalse(r.aiMessage().text().isEmpty());
        assertNotNull(r.finishReason());
        assertTrue(r.tokenUsage().inputTokenCount() > 0);
        assertTrue(r.tokenUsage().outputTokenCount() > 0 && r.tokenUsage().outputTokenCount() <= 10);

        OpenAiChatModel keyless = OpenAiChatModel.builder().baseUrl(demo.base() + "/v1").apiKey("wrong").modelName(DemoServer.MODEL)
                .maxTokens(4).maxRetries(0).build();
        RuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> keyless.chat("Hi there"));
        assertTrue(String.valueOf(refused.getMessage()).contains("API key"), refused.toString());
    }

    @Test
    void langChain4jStreamingChatModelStreamsTheSameAnswerAsTheBlockingOne() throws Exception {
        OpenAiChatModel blocking = OpenAiChatModel.builder().baseUrl(demo.base() + "/v1").apiKey(KEY).modelName(DemoServer.MODEL)
                .maxTokens(12).seed(17).temperature(0.8).maxRetries(0).build();
        String whole = blocking.chat("Tell me a short story.");
        OpenAiStreamingChatModel streaming = OpenAiStreamingChatModel.builder().baseUrl(demo.base() + "/v1").apiKey(KEY)
                .modelName(DemoServer.MODEL).maxTokens(12).seed(17).temperature(0.8).build();
        StringBuilder partial = new StringBuilder();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        streaming.chat("Tell me a short story.", new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String text) {
                partial.append(text);
            }

            @Override
            public void onCompleteResponse(ChatResponse response) {
                done.complete(response);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        ChatResponse r = done.get(60, TimeUnit.SECONDS);
        assertFalse(whole.isEmpty());
        assertEquals(whole, partial.toString());
        assertEquals(whole, r.aiMessage().text());
        assertNull(r.aiMessage().toolExecutionRequests().isEmpty() ? null : r.aiMessage().toolExecutionRequests());
        assertTrue(r.tokenUsage() != null && r.tokenUsage().outputTokenCount() > 0, "usage from include_usage: " + r.tokenUsage());
    }
}
