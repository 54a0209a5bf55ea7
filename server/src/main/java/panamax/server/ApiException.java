package panamax.server;

/**
 * A request the server answers with an OpenAI error body
 * ({@code {"error":{"message","type","param","code"}}}) instead of a result.
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String type;
    private final String param;
    private final String code;
    private final Integer retryAfterSeconds;

    /**
     * @param status  the HTTP status
     * @param type    OpenAI's error type, e.g. {@code invalid_request_error}
     * @param param   the request field at fault, or null
     * @param code    a machine-readable code, or null
     */
    public ApiException(int status, String type, String param, String code, String message, Integer retryAfterSeconds) {
        super(message);
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** 400: a field has a value the server does not accept. */
    public static ApiException invalid(String param, String message) {
        return new ApiException(400, "invalid_request_error", param, param == null ? null : "invalid_value", message, null);
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String param() {
        return param;
    }

    public String code() {
        return code;
    }

    /** Seconds a client should wait before retrying (the {@code Retry-After} header), or null. */
    public Integer retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
