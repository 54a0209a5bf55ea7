package panamax.engine.structured;

import java.util.List;

/** The parsed form of a GBNF rule body, before {@link Grammar} flattens it into a program. */
sealed interface GrammarNode {
    /** One of several options (a rule body or a parenthesized group). */
    record Choice(List<GrammarNode> options) implements GrammarNode {
    }

    /** Items one after another; empty matches the empty string. */
    record Sequence(List<GrammarNode> items) implements GrammarNode {
    }

    /** One code point from a class (literals become sequences of single-point classes). */
    record Chars(CharClass chars) implements GrammarNode {
    }

    /** A use of the rule {@code name}, written at {@code line}:{@code column}. */
    record RuleRef(String name, int line, int column) implements GrammarNode {
    }

    /** A use of a helper rule by its id (groups and repetitions lowered by {@link Grammar}). */
    record RuleId(int id) implements GrammarNode {
    }

    /** {@code body} at least {@code min} and at most {@code max} times ({@code max} -1: unbounded). */
    record Repeat(GrammarNode body, int min, int max) implements GrammarNode {
    }
}
