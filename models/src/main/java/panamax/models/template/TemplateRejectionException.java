package panamax.models.template;

/** Thrown by a chat template's {@code raise_exception}: the conversation is not one the template accepts. */
public final class TemplateRejectionException extends RuntimeException {
    public TemplateRejectionException(String message) {
        super(message);
    }
}
