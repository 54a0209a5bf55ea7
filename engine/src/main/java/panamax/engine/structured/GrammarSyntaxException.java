package panamax.engine.structured;

import panamax.api.error.PanamaxException;

/**
 * A grammar that cannot be used: a syntax error at a line and column of its text, or a rule
 * problem (undefined, duplicated, left-recursive) at the place it is named.
 */
public final class GrammarSyntaxException extends PanamaxException {
    private final int line;
    private final int column;

    GrammarSyntaxException(int line, int column, String problem) {
        super("grammar error at line " + line + ", column " + column + ": " + problem);
        this.line = line;
        this.column = column;
    }

    /** The 1-based line of the problem. */
    public int line() {
        return line;
    }

    /** The 1-based column (in characters) of the problem. */
    public int column() {
        return column;
    }
}
