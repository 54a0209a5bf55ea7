package panamax.layout.tck;

import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayList;
import java.util.List;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.kv.LayoutCapabilities;

/**
 * Generators of operation sequences: a list of small op records, so QuickTheories shrinks a
 * failure to the shortest list of the simplest steps that still fails. Only operations a layout
 * declares are generated: prefill cohorts, filters and extracts need {@code batchable}, trims
 * {@code trimmable}, re-alignment {@code alignsRows}; appends and speculative rounds are always in.
 */
public final class Sequences {
    private Sequences() {
    }

    static Gen<LayoutOp> append() {
        return Generate.frequency(
                Pair.of(3, Generate.constant(new LayoutOp.Append(1))),
                Pair.of(2, Generate.range(1, 5).map(LayoutOp.Append::new)));
    }

    static Gen<LayoutOp> prefill() {
        return Generate.range(0, 2).zip(Generate.range(0, 1000), Generate.range(0, 3), Generate.range(0, 2),
                (rows, seed, chunk, ending) -> (LayoutOp) new LayoutOp.Prefill(rows, seed, chunk, ending));
    }

    static Gen<LayoutOp> filter() {
        return Generate.range(0, 1000).map(s -> (LayoutOp) new LayoutOp.Filter(s));
    }

    static Gen<LayoutOp> extract() {
        return Generate.range(0, 3).zip(Generate.booleans(), (r, c) -> (LayoutOp) new LayoutOp.Extract(r, c));
    }

    static Gen<LayoutOp> trim() {
        return Generate.range(0, 2).map(n -> (LayoutOp) new LayoutOp.Trim(n));
    }

    static Gen<LayoutOp> round() {
        return Generate.range(0, 2).zip(Generate.booleans(), Generate.range(0, 1000), Generate.booleans(),
                (n, single, seed, commit) -> (LayoutOp) new LayoutOp.Round(n, single, seed, commit));
    }

    static Gen<LayoutOp> align() {
        return Generate.range(0, 1000).map(s -> (LayoutOp) new LayoutOp.Align(s));
    }

    /** Which operations a generated sequence may contain. */
    public enum Kind {
        APPEND, ROUND, PREFILL, FILTER, EXTRACT, TRIM, ALIGN;

        /** The operations {@code caps} declares. */
        public static List<Kind> declaredBy(LayoutCapabilities caps) {
            List<Kind> kinds = new ArrayList<>(List.of(APPEND, ROUND));
            if (caps.batchable()) kinds.addAll(List.of(PREFILL, FILTER, EXTRACT));
            if (caps.trimmable()) kinds.add(TRIM);
            if (caps.alignsRows()) kinds.add(ALIGN);
            return List.copyOf(kinds);
        }
    }

    /** One step drawn from {@code kinds}, appends weighted most. */
    public static Gen<LayoutOp> op(List<Kind> kinds) {
        List<Pair<Integer, Gen<LayoutOp>>> weighted = new ArrayList<>();
        for (Kind k : kinds) {
            weighted.add(switch (k) {
                case APPEND -> Pair.of(10, append());
                case ROUND -> Pair.of(3, round());
                case PREFILL -> Pair.of(3, prefill());
                case FILTER -> Pair.of(2, filter());
                case EXTRACT -> Pair.of(1, extract());
                case TRIM -> Pair.of(2, trim());
                case ALIGN -> Pair.of(1, align());
            });
        }
        return Generate.frequency(weighted);
    }

    /** Sequences of 1 to {@code maxLength} steps drawn from {@code kinds}. */
    public static Gen<List<LayoutOp>> sequences(List<Kind> kinds, int maxLength) {
        return lists().of(op(kinds)).ofSizeBetween(1, maxLength);
    }
}
