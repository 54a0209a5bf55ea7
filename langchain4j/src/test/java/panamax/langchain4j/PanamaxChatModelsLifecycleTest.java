package panamax.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;

/** Owning, borrowing and closing: what an application sees when it shuts down. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PanamaxChatModelsLifecycleTest {
    private static ModelSession openDemo() {
        return ModelSession.open(PluginRegistry.discover(Optional.empty()), DemoModel.directory(), KvScheme.identity(), Optional.empty());
    }

    @Test
    void closingTheModelsFreesTheKvAndPrefixCacheOfABorrowedSession() throws InterruptedException {
        try (ModelSession session = openDemo()) {
            long baseline = session.backend().memoryStats().activeBytes();
            PanamaxChatModels models = PanamaxChatModels.builder().session(session).maxOutputTokens(8).seed(1).build();
            try {
                ChatResponse response = models.chatModel().chat(UserMessage.from("Once upon a time"));
                assertFalse(response.aiMessage().text().isEmpty());
                // the caller hears of the end within the scheduler's step; its stats are published after it
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (models.stats().prefixEntries() == 0 && System.nanoTime() < deadline) Thread.sleep(5);
                assertTrue(models.stats().prefixEntries() > 0, "the finished row stays in the prefix cache");
                assertTrue(session.backend().memoryStats().activeBytes() > baseline, "the cached row holds backend memory");
            } finally {
                models.close();
            }
            assertEquals(baseline, session.backend().memoryStats().activeBytes());
            assertFalse(session.tokenizer().encode("still open", false).length == 0, "a borrowed session stays open");
        }
    }

    @Test
    void closingEndsRequestsInFlightWithAnErrorAndRefusesNewOnes() throws Exception {
        PanamaxChatModels models = PanamaxChatModels.builder().modelDirectory(DemoModel.directory()).build();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> error = new CompletableFuture<>();
        // no token limit: the rest of the context, far longer than the test waits
        models.streamingChatModel().chat(ChatRequest.builder().messages(UserMessage.from("Once upon a time")).build(),
                new StreamingChatResponseHandler() {
                    @Override
                    public void onPartialResponse(String text) {
                        started.countDown();
                    }

                    @Override
                    public void onCompleteResponse(ChatResponse response) {
                        error.completeExceptionally(new AssertionError("finished before close: " + response));
                    }

                    @Override
                    public void onError(Throwable e) {
                        error.complete(e);
                    }
                });
        assertTrue(started.await(30, TimeUnit.SECONDS));
        PanamaxChatModel chat = models.chatModel();
        models.close();
        assertInstanceOf(IllegalStateException.class, error.get(10, TimeUnit.SECONDS));
        assertThrows(IllegalStateException.class, () -> chat.chat("hello"));
        models.close(); // idempotent
    }

    @Test
    void aStreamingHandlerThatThrowsCancelsItsRequestAndReceivesTheException() throws Exception {
        try (PanamaxChatModels models = PanamaxChatModels.builder().modelDirectory(DemoModel.directory()).maxOutputTokens(64).build()) {
            AtomicInteger partials = new AtomicInteger();
            CompletableFuture<Throwable> error = new CompletableFuture<>();
            RuntimeException failure = new RuntimeException("the client went away");
            models.streamingChatModel().chat("Once upon a time", new StreamingChatResponseHandler() {
                @Override
                public void onPartialResponse(String text) {
                    partials.incrementAndGet();
                    throw failure;
                }

                @Override
                public void onCompleteResponse(ChatResponse response) {
                    error.completeExceptionally(new AssertionError("completed after the handler failed"));
                }

                @Override
                public void onError(Throwable e) {
                    error.complete(e);
                }
            });
            assertEquals(failure, error.get(30, TimeUnit.SECONDS));
            assertEquals(1, partials.get());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (models.stats().runningRows() > 0 && System.nanoTime() < deadline) Thread.sleep(10);
            assertEquals(0, models.stats().runningRows(), "the cancelled row left the batch");
        }
    }

    @Test
    void theBuilderTakesExactlyOneOfADirectoryAndASession() {
        var neither = assertThrows(IllegalStateException.class, () -> PanamaxChatModels.builder().build());
        assertTrue(neither.getMessage().contains("neither"), neither.getMessage());
        try (ModelSession session = openDemo()) {
            assertThrows(IllegalStateException.class,
                    () -> PanamaxChatModels.builder().session(session).modelDirectory(DemoModel.directory()).build());
            assertThrows(IllegalStateException.class, () -> PanamaxChatModels.builder().session(session).kvScheme(KvScheme.identity()).build());
        }
    }
}
