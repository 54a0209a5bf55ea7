/**
 * LangChain4j's {@code ChatModel} and {@code StreamingChatModel} over panamax's in-process
 * continuous-batching scheduler: many callers share one model with batching, prefix reuse and
 * admission control, without HTTP.
 */
module panamax.langchain4j {
    requires transitive panamax.engine;
    // langchain4j-core 1.19.0 has no module descriptor and no Automatic-Module-Name: the name comes from the jar's file name
    requires transitive langchain4j.core;

    exports panamax.langchain4j;
}
