package panamax.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionMessageFunctionToolCall;
import com.openai.models.chat.completions.ChatCompletionNamedToolChoice;
import com.openai.models.chat.completions.ChatCompletionToolChoiceOption;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.listener.ChatModelResponseContext;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import panamax.engine.serve.ServingConfig;

/**
 * Real clients calling tools through the server, on a model with the real Qwen3 template: a
 * LangChain4j AI Service whose {@code @Tool} method is called and whose result goes back to the
 * model for the final answer, and openai-java's tool calls, whole and streamed, round-tripped.
 * The model's weights are random, so calls are forced ({@code required} or named): they must parse
 * whatever the model would have preferred to say.
 */
class ToolClientsTest {
    private static final String KEY = "sk-tools-test";
    private static QwenToolModel model;
    private static DemoServer server;
    private static OpenAIClient openai;

    enum City { PARIS, OSLO, LIMA }

    @BeforeAll
    static void start() {
        model = QwenToolModel.create();
        server = DemoServer.serving(ServerOptions.defaults().withApiKey(KEY), ServingConfig.defaults().withMaxBatch(4), model.directory);
        openai = OpenAIOkHttpClient.builder().baseUrl(server.base() + "/v1").apiKey(KEY).maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        if (openai != null) openai.close();
        if (server != null) server.close();
        if (model != null) model.close();
    }

    // --- LangChain4j AI Services ---

    interface Assistant {
        String chat(String message);
    }

    static final class WeatherTools {
        final List<City> asked = new CopyOnWriteArrayList<>();

        @Tool("Current weather in a city")
        String weather(@P("the city") City city) {
            asked.add(city);
            return "sunny, 21 degrees in " + city;
        }
    }

    /**
     * Forces a call while the last message is the user's and lets the model answer freely once a
     * tool's result came back — what an application that must get a call does, since LangChain4j
     * would otherwise repeat the forced choice after the tool ran.
     */
    private record ForceFirstCall(ChatModel delegate) implements ChatModel {
        @Override
        public ChatResponse chat(ChatRequest request) {
            boolean fromUser = request.messages().getLast() instanceof UserMessage;
            ChatRequestParameters parameters = request.parameters().overrideWith(
                    ChatRequestParameters.builder().toolChoice(fromUser ? ToolChoice.REQUIRED : ToolChoice.AUTO).build());
            return delegate.chat(request.toBuilder().parameters(parameters).build());
        }

        @Override
        public ChatRequestParameters defaultRequestParameters() {
            return delegate.defaultRequestParameters();
        }
    }

    @Test
    void aLangChain4jAiServiceCallsItsToolAndAnswersFromTheResult() {
        List<ChatRequest> requests = new CopyOnWriteArrayList<>();
        List<ChatResponse> responses = new CopyOnWriteArrayList<>();
        ChatModelListener recorder = new ChatModelListener() {
            @Override
            public void onRequest(ChatModelRequestContext context) {
                requests.add(context.chatRequest());
            }

            @Override
            public void onResponse(ChatModelResponseContext context) {
                responses.add(context.chatResponse());
            }
        };
        ChatModel chatModel = OpenAiChatModel.builder().baseUrl(server.base() + "/v1").apiKey(KEY).modelName(DemoServer.MODEL)
                .temperature(0.7).seed(42).maxTokens(24).maxRetries(0).listeners(List.of(recorder)).build();
        WeatherTools tools = new WeatherTools();
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(new ForceFirstCall(chatModel)).tools(tools).build();

        String answer = assistant.chat("What is the weather in Paris?");

        assertEquals(1, tools.asked.size(), "the tool ran once, with a city it parsed: " + tools.asked);
        assertEquals(2, requests.size(), "a forced call, then the answer from the tool's result: " + requests);
        AiMessage call = responses.get(0).aiMessage();
        assertTrue(call.hasToolExecutionRequests(), "the first answer is a call: " + call);
        assertEquals("weather", call.toolExecutionRequests().getFirst().name());
        ToolExecutionResultMessage result = assertInstanceOf(ToolExecutionResultMessage.class, requests.get(1).messages().getLast());
        assertEquals(call.toolExecutionRequests().getFirst().id(), result.id(), "the result names the call it answers");
        assertEquals("sunny, 21 degrees in " + tools.asked.getFirst(), result.text());
        AiMessage last = responses.get(1).aiMessage();
        assertFalse(last.hasToolExecutionRequests(), "the model answered in text once the result came back: " + last);
        assertEquals(last.text(), answer);
        assertNotNull(answer);
        assertTrue(responses.get(1).tokenUsage().inputTokenCount() > responses.get(0).tokenUsage().inputTokenCount(),
                "the call and its result were rendered into the second prompt");
    }

    // --- openai-java ---

    /** openai-java derives a strict schema from this class: {@code city}, one of the enum's names. */
    public static final class GetWeather {
        @JsonPropertyDescription("the city")
        public City city;
    }

    private static ChatCompletionCreateParams.Builder weatherRequest() {
        return ChatCompletionCreateParams.builder().model(DemoServer.MODEL).addUserMessage("What is the weather in Oslo?")
                .addTool(GetWeather.class).maxCompletionTokens(32).seed(9).temperature(0.8);
    }

    @Test
    void openAiJavaGetsAForcedCallItCanParseAndRoundTripsTheResult() {
        ChatCompletion first = openai.chat().completions().create(weatherRequest()
                .toolChoice(ChatCompletionToolChoiceOption.Auto.REQUIRED).build());
        ChatCompletion.Choice choice = first.choices().getFirst();
        assertEquals(ChatCompletion.Choice.FinishReason.TOOL_CALLS, choice.finishReason());
        ChatCompletionMessageFunctionToolCall call = choice.message().toolCalls().orElseThrow().getFirst().asFunction();
        assertEquals("GetWeather", call.function().name());
        GetWeather args = call.function().arguments(GetWeather.class);
        assertNotNull(args.city, "arguments parse into the tool's class: " + call.function().arguments());

        ChatCompletion second = openai.chat().completions().create(weatherRequest()
                .addMessage(choice.message())
                .addMessage(ChatCompletionToolMessageParam.builder().toolCallId(call.id()).content("Snow, -3 degrees").build())
                .build());
        ChatCompletion.Choice next = second.choices().getFirst();
        assertTrue(next.message().toolCalls().orElse(List.of()).isEmpty() || next.finishReason() == ChatCompletion.Choice.FinishReason.TOOL_CALLS,
                "an answer in text or, if the model chose so, another parsed call: " + next);
        assertTrue(second.usage().orElseThrow().promptTokens() > first.usage().orElseThrow().promptTokens(),
                "the call and the tool's answer reached the prompt");
    }

    @Test
    void openAiJavaAccumulatesAStreamedNamedCallIntoTheWholeAnswer() {
        ChatCompletionCreateParams params = weatherRequest().toolChoice(ChatCompletionNamedToolChoice.builder()
                .function(ChatCompletionNamedToolChoice.Function.builder().name("GetWeather").build()).build()).build();
        ChatCompletionMessageFunctionToolCall whole = openai.chat().completions().create(params).choices().getFirst().message()
                .toolCalls().orElseThrow().getFirst().asFunction();
        ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
        try (StreamResponse<ChatCompletionChunk> stream = openai.chat().completions().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        }
        ChatCompletion streamed = accumulator.chatCompletion();
        assertEquals(ChatCompletion.Choice.FinishReason.TOOL_CALLS, streamed.choices().getFirst().finishReason());
        ChatCompletionMessageFunctionToolCall call = streamed.choices().getFirst().message().toolCalls().orElseThrow().getFirst().asFunction();
        assertEquals("GetWeather", call.function().name());
        assertEquals(whole.function().arguments(), call.function().arguments(), "same seed, same arguments, streamed or not");
        assertNotNull(call.function().arguments(GetWeather.class).city);
        assertFalse(call.id().isEmpty());
    }
}
