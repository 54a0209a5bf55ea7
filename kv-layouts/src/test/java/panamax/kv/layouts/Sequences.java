package panamax.kv.layouts;

import static org.quicktheories.generators.SourceDSL.lists;

import java.util.List;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Generators of operation sequences: a list of small op records, so QuickTheories shrinks a
 * failure to the shortest list of the simplest steps that still fails.
 */
final class Sequences {
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

    static Gen<LayoutOp> op() {
        return Generate.frequency(List.of(
                Pair.of(10, append()),
                Pair.of(3, prefill()),
                Pair.of(2, filter()),
                Pair.of(1, extract()),
                Pair.of(2, trim()),
                Pair.of(3, round()),
                Pair.of(1, align())));
    }

    static Gen<List<LayoutOp>> sequences() {
        return lists().of(op()).ofSizeBetween(1, 16);
    }

    static Gen<CodecChoice> codecs(CodecChoice... choices) {
        return Generate.pick(List.of(choices));
    }
}
