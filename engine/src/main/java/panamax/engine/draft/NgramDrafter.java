package panamax.engine.draft;

import java.util.ArrayList;
import java.util.List;
import panamax.api.draft.Draft;
import panamax.api.draft.DraftRow;
import panamax.api.draft.Drafter;

/**
 * Prompt lookup: for n from {@code max} down to {@code min}, finds the latest earlier occurrence of
 * the row's last n tokens in its own history and proposes the tokens that followed it. Drafts are
 * deterministic (a point mass each). Keeps no state between calls.
 */
final class NgramDrafter implements Drafter {
    private final int min;
    private final int max;

    NgramDrafter(int min, int max) {
        this.min = min;
        this.max = max;
    }

    @Override
    public List<Draft> draft(List<DraftRow> rows, int k) {
        List<Draft> out = new ArrayList<>(rows.size());
        for (DraftRow row : rows) out.add(lookup(row.tokens(), row.length(), k));
        return out;
    }

    /** The continuation of the longest (then latest) earlier match of the history's suffix, or none. */
    Draft lookup(int[] tokens, int length, int k) {
        for (int n = Math.min(max, length - 1); n >= min; n--) {
            int suffix = length - n;
            // latest start first: the most recent context predicts the next tokens best when copying
            for (int start = suffix - 1; start >= 0; start--) {
                if (!matches(tokens, start, suffix, n)) continue;
                int from = start + n;
                int count = Math.min(k, length - from);
                if (count > 0) return Draft.of(java.util.Arrays.copyOfRange(tokens, from, from + count));
            }
        }
        return Draft.NONE;
    }

    private static boolean matches(int[] tokens, int a, int b, int n) {
        for (int i = 0; i < n; i++) if (tokens[a + i] != tokens[b + i]) return false;
        return true;
    }

    @Override
    public void close() {
    }
}
