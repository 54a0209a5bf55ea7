package panamax.engine.plugins;

/**
 * A plugin that could not be loaded; the others are unaffected.
 *
 * @param source  what failed, by name: a jar file, or a provider class with its origin
 * @param kind    the kind being loaded, or {@code null} when the failure concerns a whole jar
 * @param message what went wrong, taken from the exception
 */
public record PluginFailure(String source, PluginKind kind, String message) {
    @Override
    public String toString() {
        return (kind == null ? "" : kind.label() + " ") + source + ": " + message;
    }

    /** The messages of an exception and its causes, joined, so the root cause is not lost. */
    static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
            if (sb.indexOf(m) >= 0) continue;
            if (!sb.isEmpty()) sb.append(" <- caused by ");
            sb.append(m);
            if (t.getCause() == t) break;
        }
        return sb.toString();
    }
}
