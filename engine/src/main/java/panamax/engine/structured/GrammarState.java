package panamax.engine.structured;

import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Where a {@link Grammar}'s pushdown automaton stands: the set of parse stacks still alive (each
 * topped by a character class, or empty once the start rule is complete) and the bytes of a UTF-8
 * character read in part. Immutable: {@link #advance} and {@link #advanceByte} return a new state
 * or null when the input is rejected. Equal states (same stacks, same partial character) are
 * {@code equals}, so a state keys a cache of token masks.
 */
public final class GrammarState {
    private final Grammar g;
    /** Distinct stacks, ordered by hash so equal sets compare equal. */
    private final Stack[] stacks;
    /** The leading bits of a code point whose remaining continuation bytes are still to come. */
    private final int partial;
    private final int remaining;
    /** The least code point the character in progress may encode (shorter forms are overlong and invalid). */
    private final int floor;
    private final int hash;
    /** The state after each byte, or {@link #DEAD}; cached only in canonical states (see {@link Grammar#canonical}). */
    private volatile GrammarState[] transitions;
    private static final GrammarState DEAD = new GrammarState(null, new Stack[0], 0, 0, 0);

    private GrammarState(Grammar g, Stack[] stacks, int partial, int remaining, int floor) {
        this.g = g;
        this.stacks = stacks;
        this.partial = partial;
        this.remaining = remaining;
        this.floor = floor;
        this.hash = (Arrays.hashCode(stacks) * 31 + partial) * 31 + remaining * 7 + floor;
    }

    static GrammarState start(Grammar g) {
        Set<Stack> out = new LinkedHashSet<>();
        expandRule(g, g.root, Stack.EMPTY, out);
        return g.canonical(of(g, out, 0, 0));
    }

    private static GrammarState of(Grammar g, Set<Stack> stacks, int partial, int remaining) {
        Stack[] sorted = stacks.toArray(Stack[]::new);
        if (sorted.length > 1) Arrays.sort(sorted, Comparator.comparingInt(Stack::hashCode));
        return new GrammarState(g, sorted, partial, remaining, 0);
    }

    /** The state after the code point {@code c}, or null when no stack accepts it (or a character is in progress). */
    public GrammarState advance(int c) {
        if (remaining != 0) return null;
        Set<Stack> out = new LinkedHashSet<>();
        for (Stack s : stacks) {
            if (s == Stack.EMPTY) continue;
            if (g.classes[g.arg[s.pos]].matches(c)) expandAt(g, s.pos + 1, s.rest, out);
        }
        return out.isEmpty() ? null : of(g, out, 0, 0);
    }

    /**
     * The state after one byte of UTF-8 text, or null when the byte is invalid UTF-8 here or no
     * character it can begin or continue is accepted.
     */
    public GrammarState advanceByte(int b) {
        b &= 0xFF;
        GrammarState[] cache = transitions;
        if (cache != null) {
            GrammarState known = cache[b];
            if (known != null) return known == DEAD ? null : known;
        }
        GrammarState next = computeByte(b);
        if (next != null) next = g.canonical(next);
        if (cache != null) cache[b] = next == null ? DEAD : next; // racing writers store equal values
        return next;
    }

    /** Called once when this state becomes its grammar's canonical instance: from then on its transitions are cached. */
    void markCanonical() {
        transitions = new GrammarState[256];
    }

    private GrammarState computeByte(int b) {
        if (remaining == 0) {
            if (b < 0x80) return advance(b);
            int lead, more;
            if ((b & 0xE0) == 0xC0) {
                lead = b & 0x1F;
                more = 1;
                if (lead < 2) return null; // overlong
            } else if ((b & 0xF0) == 0xE0) {
                lead = b & 0x0F;
                more = 2;
            } else if ((b & 0xF8) == 0xF0) {
                lead = b & 0x07;
                more = 3;
                if (lead > 4) return null;
            } else {
                return null; // a continuation byte with nothing to continue, or 0xF8-0xFF
            }
            int least = more == 1 ? 0x80 : more == 2 ? 0x800 : 0x10000;
            return viable(lead, more, least) ? new GrammarState(g, stacks, lead, more, least) : null;
        }
        if ((b & 0xC0) != 0x80) return null;
        int value = partial << 6 | (b & 0x3F);
        if (remaining == 1) {
            if (value > CharClass.MAX_CODE_POINT || (value >= 0xD800 && value <= 0xDFFF) || value < floor) return null;
            return new GrammarState(g, stacks, 0, 0, 0).advance(value);
        }
        return viable(value, remaining - 1, floor) ? new GrammarState(g, stacks, value, remaining - 1, floor) : null;
    }

    /**
     * Whether some code point starting with {@code bits} and {@code more} continuation bytes is
     * accepted. The bits so far fix the sequence's length, and so the least code point it may
     * encode: overlong forms (an ASCII quote hidden in three bytes) are rejected.
     */
    private boolean viable(int bits, int more, int least) {
        int lo = bits << (6 * more);
        int hi = lo | ((1 << (6 * more)) - 1);
        lo = Math.max(lo, least);
        if (lo > hi || lo > CharClass.MAX_CODE_POINT) return false;
        for (Stack s : stacks) {
            if (s != Stack.EMPTY && g.classes[g.arg[s.pos]].intersects(lo, Math.min(hi, CharClass.MAX_CODE_POINT))) return true;
        }
        return false;
    }

    /** The state after every code point of {@code text}, or null when the grammar rejects it. */
    public GrammarState advance(String text) {
        GrammarState s = this;
        for (int i = 0; i < text.length() && s != null; ) {
            int c = text.codePointAt(i);
            s = s.advance(c);
            i += Character.charCount(c);
        }
        return s;
    }

    /** Whether the input so far is a complete sentence of the grammar (it may still go on). */
    public boolean accepting() {
        if (remaining != 0) return false;
        for (Stack s : stacks) if (s == Stack.EMPTY) return true;
        return false;
    }

    /** Whether the input is complete and nothing more can follow. */
    public boolean complete() {
        return remaining == 0 && stacks.length == 1 && stacks[0] == Stack.EMPTY;
    }

    /** Whether a UTF-8 character is read in part. */
    boolean midCharacter() {
        return remaining != 0;
    }

    private static void expandRule(Grammar g, int rule, Stack cont, Set<Stack> out) {
        for (int start : g.alternatives[rule]) expandAt(g, start, cont, out);
    }

    /** Adds every stack that reading from {@code pos} (then {@code cont}) can reach before its next character. */
    private static void expandAt(Grammar g, int pos, Stack cont, Set<Stack> out) {
        switch (g.kind[pos]) {
            case Grammar.END -> {
                if (cont == Stack.EMPTY) out.add(Stack.EMPTY);
                else expandAt(g, cont.pos, cont.rest, out);
            }
            case Grammar.CHARS -> out.add(new Stack(pos, cont));
            default -> {
                // A reference in tail position pushes nothing: repetition rules recurse without growing the stack.
                Stack after = g.kind[pos + 1] == Grammar.END ? cont : new Stack(pos + 1, cont);
                expandRule(g, g.arg[pos], after, out);
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GrammarState s && s.hash == hash && s.g == g && s.partial == partial && s.remaining == remaining && s.floor == floor
                && Arrays.equals(s.stacks, stacks);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "GrammarState[" + stacks.length + " stacks" + (remaining != 0 ? ", mid-character" : "") + (accepting() ? ", accepting" : "") + "]";
    }

    /** One parse stack: an immutable list of program positions, top first. */
    static final class Stack {
        static final Stack EMPTY = new Stack();
        final int pos;
        final Stack rest;
        private final int hash;

        private Stack() {
            this.pos = -1;
            this.rest = null;
            this.hash = 0;
        }

        Stack(int pos, Stack rest) {
            this.pos = pos;
            this.rest = rest;
            this.hash = rest.hash * 1_000_003 + pos + 1;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) return true;
            if (!(o instanceof Stack s) || s.hash != hash) return false;
            Stack a = this, b = s;
            while (a != b) {
                if (a == EMPTY || b == EMPTY || a.pos != b.pos) return false;
                a = a.rest;
                b = b.rest;
            }
            return true;
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
