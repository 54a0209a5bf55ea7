package panamax.engine.structured;

import panamax.api.error.PanamaxException;

/**
 * A JSON Schema that constrained decoding cannot enforce: a keyword outside the supported subset
 * (OpenAI's strict mode), or a malformed value. Names the keyword and where it is (a JSON pointer).
 */
public final class UnsupportedSchemaException extends PanamaxException {
    private final String keyword;
    private final String path;

    UnsupportedSchemaException(String keyword, String path, String problem) {
        super("JSON schema keyword '" + keyword + "' at " + path + ": " + problem);
        this.keyword = keyword;
        this.path = path;
    }

    /** The keyword that is not supported or malformed, e.g. {@code pattern}. */
    public String keyword() {
        return keyword;
    }

    /** Where it is, as a JSON pointer fragment such as {@code #/properties/name}. */
    public String path() {
        return path;
    }
}
