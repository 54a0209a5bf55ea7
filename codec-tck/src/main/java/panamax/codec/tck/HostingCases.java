package panamax.codec.tck;

import java.util.List;
import java.util.Map;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.layout.tck.LayoutCase;

/**
 * The parameter sets of the layouts panamax ships, with their reference rules, under which a codec
 * is hosted: {@code full}; {@code rotating} with small windows the sequences wrap; {@code delayed}
 * over full and rotating storage with starts the sequences cross.
 */
final class HostingCases {
    private HostingCases() {
    }

    static boolean known(String layout) {
        return List.of("full", "rotating", "delayed").contains(layout);
    }

    static Gen<LayoutCase> of(String layout) {
        return switch (layout) {
            case "full" -> Generate.constant(LayoutCase.keepingAll(Map.of()));
            case "rotating" -> Generate.pick(List.of(3, 5)).zip(Generate.range(0, 1), (w, k) ->
                    LayoutCase.window(Map.of("window", "" + w, "keep", "" + k), w, k));
            case "delayed" -> Generate.frequency(List.of(
                    Pair.of(1, Generate.pick(List.of(0, 2, 5)).map(start ->
                            LayoutCase.keepingAll(Map.of("storage", "full", "start", "" + start)).convertingAt(start))),
                    Pair.of(1, Generate.pick(List.of(2, 5)).map(start ->
                            LayoutCase.window(Map.of("storage", "rotating", "window", "4", "keep", "1", "start", "" + start), 4, 1)
                                    .convertingAt(start)))));
            default -> throw new IllegalArgumentException("no hosting cases for layout " + layout);
        };
    }
}
