package panamax.layout.tck;

import java.util.ArrayList;
import java.util.List;

/**
 * The plain model of one row: its token ids in position order (index = logical position), and
 * whether the row has moved to the layout's codec (delayed layouts).
 */
final class ReferenceRow {
    final List<Integer> tokens = new ArrayList<>();
    boolean converted;

    ReferenceRow(boolean converted) {
        this.converted = converted;
    }

    ReferenceRow copy() {
        ReferenceRow r = new ReferenceRow(converted);
        r.tokens.addAll(tokens);
        return r;
    }

    int offset() {
        return tokens.size();
    }

    void dropLast(int n) {
        for (int i = 0; i < n; i++) tokens.removeLast();
    }

    @Override
    public String toString() {
        return tokens.size() + (converted ? " tokens (converted)" : " tokens");
    }
}
