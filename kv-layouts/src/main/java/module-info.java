/**
 * Row layouts behind the KvLayout SPI: {@code full}, {@code rotating} (window, keep) and
 * {@code delayed} (start, over full or rotating storage). Exports nothing; found with ServiceLoader.
 */
module panamax.kv.layouts {
    requires panamax.api;

    provides panamax.api.kv.KvLayoutProvider with
            panamax.kv.layouts.FullLayoutProvider,
            panamax.kv.layouts.RotatingLayoutProvider,
            panamax.kv.layouts.DelayedLayoutProvider;
}
