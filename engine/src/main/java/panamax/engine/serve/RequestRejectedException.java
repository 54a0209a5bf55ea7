package panamax.engine.serve;

import panamax.api.error.PanamaxException;

/**
 * A request the scheduler will not take, with why: a limit it can never fit (the context, the
 * memory budget), a full queue, or a scheduler that is shutting down.
 */
public final class RequestRejectedException extends PanamaxException {
    /** What the caller can do about it. */
    public enum Kind {
        /** The request itself is wrong for this model or budget; retrying cannot help (HTTP 400). */
        INVALID,
        /** The queue is full; retry later (HTTP 429). */
        BUSY,
        /** The scheduler is shutting down (HTTP 503). */
        UNAVAILABLE
    }

    private final Kind kind;
    private final String parameter;

    /**
     * @param parameter the request field at fault (e.g. {@code max_tokens}), or null
     */
    public RequestRejectedException(Kind kind, String parameter, String message) {
        super(message);
        this.kind = kind;
        this.parameter = parameter;
    }

    public Kind kind() {
        return kind;
    }

    /** The request field at fault, or null. */
    public String parameter() {
        return parameter;
    }
}
