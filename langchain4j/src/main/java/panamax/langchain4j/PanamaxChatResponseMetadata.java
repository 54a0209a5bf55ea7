package panamax.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import java.util.Objects;

/**
 * A response's metadata with what the scheduler measured: how many prompt tokens came from the
 * prefix cache (a later turn of a conversation starts from the earlier turn's KV), and the time
 * spent waiting for admission, to the first token and in all. Immutable.
 *
 * {@snippet :
 * ChatResponse response = model.chat(request);
 * if (response.metadata() instanceof PanamaxChatResponseMetadata panamax) {
 *     System.out.println(panamax.cachedTokens() + " of " + response.tokenUsage().inputTokenCount() + " prompt tokens reused");
 * }
 * }
 */
public final class PanamaxChatResponseMetadata extends ChatResponseMetadata {
    private final int cachedTokens;
    private final double queuedSeconds;
    private final double firstTokenSeconds;
    private final double totalSeconds;

    private PanamaxChatResponseMetadata(Builder builder) {
        super(builder);
        this.cachedTokens = builder.cachedTokens;
        this.queuedSeconds = builder.queuedSeconds;
        this.firstTokenSeconds = builder.firstTokenSeconds;
        this.totalSeconds = builder.totalSeconds;
    }

    /** Prompt tokens taken from the prefix cache rather than prefilled (counted in the input tokens too). */
    public int cachedTokens() {
        return cachedTokens;
    }

    /** Seconds from submission to admission. */
    public double queuedSeconds() {
        return queuedSeconds;
    }

    /** Seconds from submission to the first generated token. */
    public double firstTokenSeconds() {
        return firstTokenSeconds;
    }

    /** Seconds from submission to the end. */
    public double totalSeconds() {
        return totalSeconds;
    }

    @Override
    public Builder toBuilder() {
        return ((Builder) toBuilder(builder())).cachedTokens(cachedTokens).queuedSeconds(queuedSeconds)
                .firstTokenSeconds(firstTokenSeconds).totalSeconds(totalSeconds);
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PanamaxChatResponseMetadata other && super.equals(other) && cachedTokens == other.cachedTokens
                && queuedSeconds == other.queuedSeconds && firstTokenSeconds == other.firstTokenSeconds
                && totalSeconds == other.totalSeconds;
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), cachedTokens, queuedSeconds, firstTokenSeconds, totalSeconds);
    }

    @Override
    public String toString() {
        return "PanamaxChatResponseMetadata{id=" + id() + ", modelName=" + modelName() + ", tokenUsage=" + tokenUsage()
                + ", finishReason=" + finishReason() + ", cachedTokens=" + cachedTokens + ", queuedSeconds=" + queuedSeconds
                + ", firstTokenSeconds=" + firstTokenSeconds + ", totalSeconds=" + totalSeconds + "}";
    }

    /** Builds {@link PanamaxChatResponseMetadata}; LangChain4j's fields come from the base builder. */
    public static final class Builder extends ChatResponseMetadata.Builder<Builder> {
        private int cachedTokens;
        private double queuedSeconds;
        private double firstTokenSeconds;
        private double totalSeconds;

        private Builder() {
        }

        public Builder cachedTokens(int tokens) {
            this.cachedTokens = tokens;
            return this;
        }

        public Builder queuedSeconds(double seconds) {
            this.queuedSeconds = seconds;
            return this;
        }

        public Builder firstTokenSeconds(double seconds) {
            this.firstTokenSeconds = seconds;
            return this;
        }

        public Builder totalSeconds(double seconds) {
            this.totalSeconds = seconds;
            return this;
        }

        @Override
        public PanamaxChatResponseMetadata build() {
            return new PanamaxChatResponseMetadata(this);
        }
    }
}
