package panamax.engine.structured;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Refuses left recursion ({@code a ::= a "x"}, or through rules that can match nothing): a pushdown
 * automaton that expands rules before reading would loop forever on it.
 */
final class LeftRecursionCheck {
    private final Grammar g;
    private final Map<String, int[]> definedAt;
    private final boolean[] nullable;

    LeftRecursionCheck(Grammar g, Map<String, int[]> definedAt) {
        this.g = g;
        this.definedAt = definedAt;
        this.nullable = nullableRules(g);
    }

    void run() {
        int n = g.rules();
        List<List<Integer>> leftEdges = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            List<Integer> edges = new ArrayList<>();
            for (int start : g.alternatives[r]) {
                for (int p = start; g.kind[p] != Grammar.END; p++) {
                    if (g.kind[p] == Grammar.CHARS) break;
                    edges.add(g.arg[p]);
                    if (!nullable[g.arg[p]]) break;
                }
            }
            leftEdges.add(edges);
        }
        byte[] mark = new byte[n]; // 0 new, 1 on the path, 2 done
        for (int r = 0; r < n; r++) if (mark[r] == 0) visit(r, leftEdges, mark, new ArrayList<>());
    }

    private void visit(int r, List<List<Integer>> edges, byte[] mark, List<Integer> path) {
        mark[r] = 1;
        path.add(r);
        for (int next : edges.get(r)) {
            if (mark[next] == 1) {
                List<String> cycle = new ArrayList<>();
                for (int i = path.indexOf(next); i < path.size(); i++) cycle.add(userName(path.get(i)));
                cycle.add(userName(next));
                String rule = userName(next);
                int[] at = definedAt.getOrDefault(rule, new int[]{1, 1});
                throw new GrammarSyntaxException(at[0], at[1], "rule '" + rule + "' is left-recursive ("
                        + String.join(" -> ", cycle) + " before reading any character); rewrite it with repetition, e.g. a ::= b (\"x\" b)*");
            }
            if (mark[next] == 0) visit(next, edges, mark, path);
        }
        path.removeLast();
        mark[r] = 2;
    }

    private String userName(int rule) {
        String name = g.ruleNames[rule];
        int hash = name.indexOf('#');
        return hash < 0 ? name : name.substring(0, hash);
    }

    /** Which rules can match the empty string (a fixpoint over the program). */
    static boolean[] nullableRules(Grammar g) {
        boolean[] nullable = new boolean[g.rules()];
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int r = 0; r < nullable.length; r++) {
                if (nullable[r]) continue;
                for (int start : g.alternatives[r]) {
                    boolean all = true;
                    for (int p = start; g.kind[p] != Grammar.END && all; p++) {
                        all = g.kind[p] == Grammar.REF && nullable[g.arg[p]];
                    }
                    if (all) {
                        nullable[r] = true;
                        changed = true;
                        break;
                    }
                }
            }
        }
        return nullable;
    }
}
