package panamax.engine.structured;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A context-free grammar over Unicode code points, compiled from GBNF text into a flat program that
 * a {@link GrammarState} runs as a pushdown automaton (llama.cpp's design: alternatives are
 * element sequences ending in END; an element is a character class or a rule reference).
 * Repetitions become helper rules whose tail call adds no stack depth. Immutable and thread-safe;
 * compile once and share (see {@link Constraints}, which caches by text).
 *
 * {@snippet :
 * Grammar yesNo = Grammar.parse("root ::= \"yes\" | \"no\"");
 * GrammarState s = yesNo.start().advance('y');
 * }
 */
public final class Grammar {
    static final byte CHARS = 0, REF = 1, END = 2;
    /** The program: per position its kind and argument (class index for CHARS, rule id for REF). */
    final byte[] kind;
    final int[] arg;
    final CharClass[] classes;
    /** Per rule id, the program position where each alternative starts. */
    final int[][] alternatives;
    final String[] ruleNames;
    final int root;
    private final String source;
    /** Canonical states, whose byte transitions are cached (see {@link GrammarState#advanceByte}); bounded. */
    private final java.util.concurrent.ConcurrentHashMap<GrammarState, GrammarState> canonical = new java.util.concurrent.ConcurrentHashMap<>();
    static final int MAX_CANONICAL_STATES = 4096;

    private Grammar(byte[] kind, int[] arg, CharClass[] classes, int[][] alternatives, String[] ruleNames, int root, String source) {
        this.kind = kind;
        this.arg = arg;
        this.classes = classes;
        this.alternatives = alternatives;
        this.ruleNames = ruleNames;
        this.root = root;
        this.source = source;
    }

    /**
     * Compiles GBNF text whose start rule is {@code root}.
     *
     * @throws GrammarSyntaxException for a syntax error, an undefined or duplicated rule, a missing
     *         {@code root}, or left recursion, with the line and column
     */
    public static Grammar parse(String gbnf) {
        return parse(gbnf, "root");
    }

    /** Compiles GBNF text whose start rule is {@code rootRule}. */
    public static Grammar parse(String gbnf, String rootRule) {
        GbnfParser.Parsed parsed = GbnfParser.parse(gbnf);
        if (!parsed.rules().containsKey(rootRule)) {
            throw new GrammarSyntaxException(1, 1, "no rule named '" + rootRule + "' (the start rule); rules defined: "
                    + String.join(", ", parsed.rules().keySet()));
        }
        return new Builder(parsed, gbnf).build(rootRule);
    }

    /** The GBNF text this grammar was compiled from. */
    public String source() {
        return source;
    }

    /** The automaton's start state: nothing consumed yet. */
    public GrammarState start() {
        return GrammarState.start(this);
    }

    /**
     * The canonical instance equal to {@code state}, registering it while there is room; past
     * {@link #MAX_CANONICAL_STATES} states (a deeply nested text) new states stay uncached.
     */
    GrammarState canonical(GrammarState state) {
        GrammarState known = canonical.get(state);
        if (known != null) return known;
        if (canonical.size() >= MAX_CANONICAL_STATES) return state;
        known = canonical.putIfAbsent(state, state);
        if (known != null) return known;
        state.markCanonical();
        return state;
    }

    int rules() {
        return alternatives.length;
    }

    @Override
    public String toString() {
        return "Grammar[" + ruleNames.length + " rules, start " + ruleNames[root] + "]";
    }

    /** Flattens parsed rules into the program, adding helper rules for groups and repetitions. */
    private static final class Builder {
        private final GbnfParser.Parsed parsed;
        private final String source;
    /** Canonical states, whose byte transitions are cached (see {@link GrammarState#advanceByte}); bounded. */
    private final java.util.concurrent.ConcurrentHashMap<GrammarState, GrammarState> canonical = new java.util.concurrent.ConcurrentHashMap<>();
    static final int MAX_CANONICAL_STATES = 4096;
        private final Map<String, Integer> ids = new LinkedHashMap<>();
        private final List<String> names = new ArrayList<>();
        private final List<List<int[]>> bodies = new ArrayList<>(); // rule -> alternatives -> (kind, arg) pairs flattened
        private final Map<CharClass, Integer> classIds = new HashMap<>();
        private final List<CharClass> classes = new ArrayList<>();
        private final Deque<Object[]> pending = new ArrayDeque<>(); // (rule id, node) still to lower

        Builder(GbnfParser.Parsed parsed, String source) {
            this.parsed = parsed;
            this.source = source;
            for (String name : parsed.rules().keySet()) newRule(name);
        }

        Grammar build(String rootRule) {
            for (Map.Entry<String, GrammarNode> e : parsed.rules().entrySet()) pending.add(new Object[]{ids.get(e.getKey()), e.getValue()});
            while (!pending.isEmpty()) {
                Object[] next = pending.poll();
                lowerRule((Integer) next[0], (GrammarNode) next[1]);
            }
            int rules = names.size();
            int size = 0;
            for (List<int[]> alts : bodies) for (int[] alt : alts) size += alt.length / 2 + 1;
            byte[] kind = new byte[size];
            int[] arg = new int[size];
            int[][] alternatives = new int[rules][];
            int at = 0;
            for (int r = 0; r < rules; r++) {
                List<int[]> alts = bodies.get(r);
                alternatives[r] = new int[alts.size()];
                for (int a = 0; a < alts.size(); a++) {
                    alternatives[r][a] = at;
                    int[] alt = alts.get(a);
                    for (int i = 0; i < alt.length; i += 2) {
                        kind[at] = (byte) alt[i];
                        arg[at++] = alt[i + 1];
                    }
                    kind[at++] = END;
                }
            }
            Grammar g = new Grammar(kind, arg, classes.toArray(CharClass[]::new), alternatives, names.toArray(String[]::new),
                    ids.get(rootRule), source);
            new LeftRecursionCheck(g, parsed.definedAt()).run();
            return g;
        }

        /** A rule; helper names hold '#', which GBNF names cannot, so they never clash with the user's. */
        private int newRule(String name) {
            int id = names.size();
            if (!name.contains("#")) ids.put(name, id);
            names.add(name);
            bodies.add(new ArrayList<>());
            return id;
        }

        private int helperRule(String base, GrammarNode body) {
            int id = newRule(base + "#" + names.size());
            pending.add(new Object[]{id, body});
            return id;
        }

        private void lowerRule(int rule, GrammarNode body) {
            List<GrammarNode> options = body instanceof GrammarNode.Choice c ? c.options() : List.of(body);
            for (GrammarNode option : options) {
                List<Integer> out = new ArrayList<>();
                emit(option, out, names.get(rule));
                bodies.get(rule).add(out.stream().mapToInt(Integer::intValue).toArray());
            }
        }

        private void emit(GrammarNode node, List<Integer> out, String owner) {
            switch (node) {
                case GrammarNode.Chars c -> {
                    out.add((int) CHARS);
                    out.add(classIds.computeIfAbsent(c.chars(), k -> {
                        classes.add(k);
                        return classes.size() - 1;
                    }));
                }
                case GrammarNode.RuleRef r -> {
                    Integer id = ids.get(r.name());
                    if (id == null) {
                        throw new GrammarSyntaxException(r.line(), r.column(), "undefined rule '" + r.name() + "'");
                    }
                    out.add((int) REF);
                    out.add(id);
                }
                case GrammarNode.RuleId r -> {
                    out.add((int) REF);
                    out.add(r.id());
                }
                case GrammarNode.Sequence s -> {
                    for (GrammarNode item : s.items()) emit(item, out, owner);
                }
                case GrammarNode.Choice c -> {
                    if (c.options().size() == 1) {
                        emit(c.options().getFirst(), out, owner);
                    } else {
                        out.add((int) REF);
                        out.add(helperRule(owner, c));
                    }
                }
                case GrammarNode.Repeat r -> repeat(r, out, owner);
            }
        }

        /** x{m,n}: m copies of x, then a chain of optional copies (or one x* rule when unbounded). */
        private void repeat(GrammarNode.Repeat r, List<Integer> out, String owner) {
            GrammarNode unit = r.body();
            if (!(unit instanceof GrammarNode.Chars) && !(unit instanceof GrammarNode.RuleRef)) {
                unit = new GrammarNode.RuleId(helperRule(owner, r.body()));
            }
            for (int i = 0; i < r.min(); i++) emit(unit, out, owner);
            if (r.max() == -1) {
                int star = newRule(owner + "#" + names.size());
                bodies.get(star).add(concat(unit, star, owner));
                bodies.get(star).add(new int[0]);
                out.add((int) REF);
                out.add(star);
            } else if (r.max() > r.min()) {
                int optional = -1;
                for (int i = r.max() - r.min(); i > 0; i--) {
                    int rule = newRule(owner + "#" + names.size());
                    bodies.get(rule).add(optional < 0 ? single(unit, owner) : concat(unit, optional, owner));
                    bodies.get(rule).add(new int[0]);
                    optional = rule;
                }
                out.add((int) REF);
                out.add(optional);
            }
        }

        private int[] single(GrammarNode unit, String owner) {
            List<Integer> out = new ArrayList<>();
            emit(unit, out, owner);
            return out.stream().mapToInt(Integer::intValue).toArray();
        }

        private int[] concat(GrammarNode unit, int rule, String owner) {
            List<Integer> out = new ArrayList<>();
            emit(unit, out, owner);
            out.add((int) REF);
            out.add(rule);
            return out.stream().mapToInt(Integer::intValue).toArray();
        }

    }
}
