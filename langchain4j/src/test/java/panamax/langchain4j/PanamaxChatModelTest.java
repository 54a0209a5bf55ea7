package panamax.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.FinishReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import panamax.demo.DemoModel;

/** One seeded owner over the demo model, shared by every test, as an application would hold it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PanamaxChatModelTest {
    private static final int MAX_TOKENS = 16;

    private PanamaxChatModels models;
    private PanamaxChatModel chat;
    private PanamaxStreamingChatModel streaming;

    @BeforeAll
    void open() {
        models = PanamaxChatModels.builder().modelDirectory(DemoModel.directory()).temperature(0.8).topP(0.95)
                .maxOutputTokens(MAX_TOKENS).seed(42).build();
        chat = models.chatModel();
        streaming = models.streamingChatModel();
    }

    @AfterAll
    void close() {
        models.close();
    }

    /** A streamed answer: the partial texts in order, and the final response. */
    private record Streamed(List<String> partials, ChatResponse response) {
        String joined() {
            return String.join("", partials);
        }
    }

    private Streamed stream(ChatRequest request) throws Exception {
        List<String> partials = new ArrayList<>();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        streaming.chat(request, new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String text) {
                partials.add(text);
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
        ChatResponse response = done.get(50, TimeUnit.SECONDS);
        return new Streamed(partials, response);
    }

    private static ChatRequest ask(String question) {
        return ChatRequest.builder().messages(UserMessage.from(question)).build();
    }

    private void assertAnswered(ChatResponse response) {
        assertFalse(response.aiMessage().text().isEmpty(), "empty answer: " + response);
        assertTrue(response.tokenUsage().inputTokenCount() > 0, response::toString);
        assertTrue(response.tokenUsage().outputTokenCount() > 0, response::toString);
        assertEquals(response.tokenUsage().inputTokenCount() + response.tokenUsage().outputTokenCount(),
                response.tokenUsage().totalTokenCount());
        assertEquals(models.modelName(), response.modelName());
    }

    @Test
    void sixConcurrentBlockingAndStreamingCallersAllCompleteWithTextAndUsage() throws Exception {
        List<Future<Streamed>> answers = new ArrayList<>();
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 6; i++) {
                ChatRequest request = ask("Once upon a time there was a little " + List.of("cat", "dog", "bird", "fox", "girl", "boy").get(i));
                answers.add(i % 2 == 0
                        ? callers.submit(() -> new Streamed(List.of(), chat.chat(request)))
                        : callers.submit(() -> stream(request)));
            }
        }
        for (int i = 0; i < answers.size(); i++) {
            Streamed answer = answers.get(i).get();
            assertAnswered(answer.response());
            if (i % 2 == 1) assertEquals(answer.response().aiMessage().text(), answer.joined(), "streamed partials concatenate to the final text");
        }
    }

    @Test
    void streamedPartialsConcatenateToTheFinalText() throws Exception {
        Streamed answer = stream(ask("The sun was shining and"));
        assertAnswered(answer.response());
        assertTrue(answer.partials().size() > 1, "expected several partials, found " + answer.partials());
        assertEquals(answer.response().aiMessage().text(), answer.joined());
    }

    @Test
    void aSeededRequestGivesTheSameTextAloneAndWhileOthersRun() throws Exception {
        ChatRequest seeded = ask("Tom and his mom went to the park.");
        String alone = chat.chat(seeded).aiMessage().text();
        List<Future<String>> others = new ArrayList<>();
        Future<String> batched;
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String q : List.of("Lily found a shiny red ball", "The big tree in the garden", "Ben wanted to fly")) {
                others.add(callers.submit(() -> chat.chat(ask(q)).aiMessage().text()));
            }
            batched = callers.submit(() -> stream(seeded).response().aiMessage().text());
        }
        for (Future<String> other : others) assertFalse(other.get().isEmpty());
        assertEquals(alone, batched.get());
    }

    @Test
    void maxOutputTokensEndsTheAnswerWithFinishReasonLength() {
        ChatResponse response = chat.chat(ChatRequest.builder().messages(UserMessage.from("Once upon a time")).maxOutputTokens(3).build());
        assertEquals(FinishReason.LENGTH, response.finishReason());
        assertEquals(3, response.tokenUsage().outputTokenCount());
    }

    @Test
    void aSecondTurnStartsFromTheFirstTurnsCachedKv() {
        UserMessage first = UserMessage.from("Sara had a small garden behind her house where she grew carrots, beans and yellow flowers.");
        ChatResponse turn1 = chat.chat(ChatRequest.builder().messages(first).build());
        List<ChatMessage> conversation = List.of(first, turn1.aiMessage(), UserMessage.from("What did she grow?"));
        ChatResponse turn2 = chat.chat(ChatRequest.builder().messages(conversation).build());
        PanamaxChatResponseMetadata metadata = assertInstanceOf(PanamaxChatResponseMetadata.class, turn2.metadata());
        int firstPrompt = turn1.tokenUsage().inputTokenCount();
        // the first turn's prompt, except the template's trailing separator that the next turn tokenizes differently
        assertTrue(metadata.cachedTokens() >= firstPrompt - 2,
                "reused " + metadata.cachedTokens() + " tokens; the first turn's prompt was " + firstPrompt + " tokens");
        assertTrue(metadata.cachedTokens() < turn2.tokenUsage().inputTokenCount());
    }

    @Test
    void systemUserAndAiMessagesRenderThroughTheTemplate() {
        ChatResponse response = chat.chat(SystemMessage.from("You tell short stories."), UserMessage.from("Tell one."),
                AiMessage.from("Once there was a frog."), UserMessage.from("Another."));
        assertAnswered(response);
    }

    @Test
    void toolsAndJsonAreRefusedNamingTheParameter() {
        ToolSpecification tool = ToolSpecification.builder().name("weather").description("the weather").build();
        var tools = assertThrows(UnsupportedFeatureException.class,
                () -> chat.chat(ChatRequest.builder().messages(UserMessage.from("hi")).toolSpecifications(tool).build()));
        assertTrue(tools.getMessage().startsWith("toolSpecifications"), tools.getMessage());
        var json = assertThrows(UnsupportedFeatureException.class,
                () -> streaming.chat(ChatRequest.builder().messages(UserMessage.from("hi")).responseFormat(ResponseFormat.JSON).build(),
                        new FailingHandler()));
        assertTrue(json.getMessage().startsWith("responseFormat"), json.getMessage());
    }

    @Test
    void aToolResultMessageIsRefusedNamingItsType() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> chat.chat(UserMessage.from("hi"), ToolExecutionResultMessage.from("1", "weather", "sunny")));
        assertTrue(e.getMessage().contains("messages[1]") && e.getMessage().contains("ToolExecutionResultMessage"), e.getMessage());
    }

    @Test
    void aTokenLimitBeyondTheContextFailsAsAnInvalidRequestBlockingOrStreaming() throws Exception {
        ChatRequest tooLong = ChatRequest.builder().messages(UserMessage.from("hi")).maxOutputTokens(5000).build();
        assertThrows(InvalidRequestException.class, () -> chat.chat(tooLong));
        CompletableFuture<Throwable> error = new CompletableFuture<>();
        streaming.chat(tooLong, new FailingHandler() {
            @Override
            public void onError(Throwable e) {
                error.complete(e);
            }
        });
        assertInstanceOf(InvalidRequestException.class, error.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aRequestNamingAnotherModelIsRefused() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> chat.chat(ChatRequest.builder().messages(UserMessage.from("hi")).modelName("gpt-4o").build()));
        assertTrue(e.getMessage().startsWith("modelName"), e.getMessage());
    }

    /** A handler that must not be reached. */
    private static class FailingHandler implements StreamingChatResponseHandler {
        @Override
        public void onCompleteResponse(ChatResponse response) {
            throw new AssertionError("unexpected response " + response);
        }

        @Override
        public void onError(Throwable error) {
            throw new AssertionError("unexpected error", error);
        }
    }
}
