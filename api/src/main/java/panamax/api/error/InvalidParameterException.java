package panamax.api.error;

/** A user-supplied parameter (a flag, a codec or layout parameter) has a value that is not allowed. */
public final class InvalidParameterException extends PanamaxException {
    private final String parameter;

    /**
     * @param parameter the parameter's name as the user wrote it, e.g. {@code "bits"}
     * @param found     the value given
     * @param allowed   the allowed values or range, e.g. {@code "2, 3, 4, 5, 6, 8"}
     */
    public InvalidParameterException(String parameter, Object found, String allowed) {
        super("invalid " + parameter + " = " + found + ": allowed " + allowed);
        this.parameter = parameter;
    }

    public String parameter() {
        return parameter;
    }
}
