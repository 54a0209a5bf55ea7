package panamax.api.error;

/**
 * Root of the errors panamax reports to its users. Every subclass carries a message that says
 * what was expected and what was found, so the CLI can print it without a stack trace.
 */
public abstract class PanamaxException extends RuntimeException {
    protected PanamaxException(String message) {
        super(message);
    }

    protected PanamaxException(String message, Throwable cause) {
        super(message, cause);
    }
}
