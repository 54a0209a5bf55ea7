package panamax.app;

import panamax.app.cli.Cli;

/** The launcher's entry point: {@code java -p mods --add-modules ALL-MODULE-PATH -m panamax.app/panamax.app.Main}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(Cli.run(args, System.out, System.err));
    }
}
