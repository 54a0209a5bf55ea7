package panamax.app.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import panamax.api.error.InvalidParameterException;
import panamax.api.error.PanamaxException;
import picocli.CommandLine;

/**
 * Runs the {@code panamax} command: parses arguments, executes a subcommand and turns user
 * mistakes into one clear line and an exit code (2 for usage errors, 1 for plans that cannot be
 * resolved), never a stack trace. Stateless.
 */
public final class Cli {
    /** Exit code for a command line the user got wrong. */
    public static final int USAGE = CommandLine.ExitCode.USAGE;
    /** Exit code when the request is well-formed but cannot be satisfied. */
    public static final int FAILED = 1;
    /** Exit code for a bug in panamax or a plugin. */
    public static final int INTERNAL = 70;

    private Cli() {
    }

    /** Runs {@code panamax args}, printing to the given streams; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(new PanamaxCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((e, arguments) -> {
            String command = e.getCommandLine().getCommandName();
            String path = e.getCommandLine().getParent() == null ? command : "panamax " + command;
            e.getCommandLine().getErr().println(path + ": " + e.getMessage() + " (see '" + path + " --help')");
            return USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            String command = commandLine.getParent() == null ? "panamax" : "panamax " + commandLine.getCommandName();
            PrintWriter w = commandLine.getErr();
            if (e instanceof InvalidParameterException) {
                w.println(command + ": " + e.getMessage());
                return USAGE;
            }
            if (e instanceof PanamaxException) {
                w.println(command + ": " + e.getMessage());
                return FAILED;
            }
            w.println(command + ": internal error, please report it: " + e);
            for (StackTraceElement frame : e.getStackTrace()) w.println("    at " + frame);
            return INTERNAL;
        });
        return cli.execute(args);
    }
}
