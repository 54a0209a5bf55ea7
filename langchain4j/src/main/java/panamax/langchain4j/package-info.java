/**
 * LangChain4j chat models served in process by panamax: a {@link panamax.langchain4j.PanamaxChatModels}
 * owns one model and its continuous-batching scheduler and hands out
 * {@link panamax.langchain4j.PanamaxChatModel} ({@code ChatModel}) and
 * {@link panamax.langchain4j.PanamaxStreamingChatModel} ({@code StreamingChatModel}) views of it.
 * Every caller, on any thread, shares the batch, the prefix cache (a conversation's next turn starts
 * from the KV of the last) and admission by KV memory; no HTTP is involved.
 *
 * {@snippet :
 * try (PanamaxChatModels models = PanamaxChatModels.builder()
 *         .modelDirectory(Path.of("models/Qwen3-0.6B"))
 *         .servingConfig(ServingConfig.defaults().withMaxBatch(16))
 *         .temperature(0.7)
 *         .maxOutputTokens(256)
 *         .build()) {
 *     ChatModel chat = models.chatModel();
 *     ChatResponse answer = chat.chat(SystemMessage.from("Answer briefly."), UserMessage.from("What is a KV cache?"));
 *     System.out.println(answer.aiMessage().text() + " " + answer.tokenUsage());
 *
 *     models.streamingChatModel().chat("Tell me a story", new StreamingChatResponseHandler() {
 *         public void onPartialResponse(String text) { System.out.print(text); }
 *         public void onCompleteResponse(ChatResponse response) { System.out.println(); }
 *         public void onError(Throwable error) { error.printStackTrace(); }
 *     });
 * }
 * }
 */
package panamax.langchain4j;
